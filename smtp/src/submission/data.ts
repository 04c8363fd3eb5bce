import type { AccountRecord } from "@mailroom/core/accounts";
import { normalizeSubmittedMessage } from "@mailroom/core/emails";
import { isMailroomError, MailroomError } from "@mailroom/core/errors";
import type { KeyChecker } from "@mailroom/core/keys";
import { capturesMail } from "@mailroom/core/sandbox";
import type { EmailSender } from "@mailroom/core/sending";
import type { SMTPServerDataStream, SMTPServerSession } from "smtp-server";
import type { SmtpDeps } from "../deps.ts";
import { refusal } from "../server/replies.ts";
import { MessageCheck } from "./message-check.ts";
import type { SubmissionUser } from "./user.ts";

/** Reads the whole DATA stream, checking it as it arrives and keeping at most `limit` bytes. */
function readMessage(stream: SMTPServerDataStream, check: MessageCheck, limit: number) {
  return new Promise<{ message: Buffer; tooBig: boolean }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (received: Buffer) => {
      const chunk = check.update(received);
      size += chunk.length;
      // Past the limit the rest is read and dropped: the reply must wait for the client's final dot.
      if (size <= limit) chunks.push(chunk);
    });
    stream.once("error", reject);
    stream.once("end", () =>
      resolve({ message: Buffer.concat(chunks), tooBig: size > limit || stream.sizeExceeded }),
    );
  });
}

const MISMATCH = new MailroomError("idempotency_key_mismatch", "Message-ID reused for another message");

/** The SMTP reply for a domain error of the send use case. */
function replyFor(error: unknown, deps: SmtpDeps): Error {
  if (!isMailroomError(error)) {
    deps.logger.warn({ err: error }, "smtp DATA could not be stored");
    return refusal(451, "4.3.0", "Temporary local problem; the message was not accepted; try again later");
  }
  switch (error.code) {
    case "domain_not_verified":
    case "domain_not_allowed":
      return refusal(550, "5.7.1", error.message.replace(/^from: /, "From: "));
    // The account's guard rails, as 4xx: the client keeps the message and tries again later (issue 31).
    case "rate_limit_exceeded":
      return refusal(451, "4.7.1", `${error.message.replace(/ with the same idempotencyKey/, "")}`);
    case "quota_exceeded":
      return refusal(452, "4.7.1", error.message);
    case "sending_paused":
      return refusal(451, "4.7.1", error.message);
    case "category_not_allowed":
      return refusal(550, "5.7.1", error.message);
    case "idempotency_key_mismatch":
      return refusal(
        550,
        "5.7.0",
        "This Message-ID was already used for a different message within the idempotency window; " +
          "give each message its own Message-ID",
      );
    default:
      return refusal(554, "5.6.0", error.message);
  }
}

/**
 * The key again at the final dot: a revoke between MAIL FROM and the end of a long DATA is answered with the
 * refusal instead of a 250 for an email the worker would then fail. (A revoke that commits after this check
 * and before the accept still fails the email in the worker's claim, as for an API send.) Answers the
 * account's row and whether the message is captured (sandbox). Concurrent messages' checks share a statement.
 */
async function recheckKey(
  deps: SmtpDeps,
  checkKey: KeyChecker,
  user: SubmissionUser,
): Promise<{ policy: AccountRecord; sandbox: boolean }> {
  try {
    const { key, account } = await checkKey(`Bearer ${user.key}`, (deps.now ?? (() => new Date()))());
    return { policy: account, sandbox: capturesMail(key, account) };
  } catch (error) {
    if (!isMailroomError(error)) throw replyFor(error, deps);
    throw refusal(530, "5.7.0", `Authentication required: ${error.message} Log in with an active key.`);
  }
}

/**
 * The end of DATA: the message is checked, normalised (core), authorised and accepted through the same
 * group commit as an API send. Resolves with the 250 text once the email is durable; rejects with the
 * refusal to answer instead.
 */
export async function acceptSubmission(
  deps: SmtpDeps,
  sender: EmailSender,
  checkKey: KeyChecker,
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  user: SubmissionUser,
): Promise<string> {
  const envelope = session.envelope;
  const check = new MessageCheck();
  const limit = deps.config.api.bodyLimitBytes;
  const { message, tooBig } = await readMessage(stream, check, limit);
  if (tooBig) throw refusal(552, "5.3.4", `Message too big: at most ${limit} bytes`);
  if (check.problem) throw refusal(554, "5.6.0", check.problem);
  const { policy, sandbox } = await recheckKey(deps, checkKey, user);
  let result: Awaited<ReturnType<EmailSender["sendItem"]>>;
  try {
    const item = normalizeSubmittedMessage({
      mailFrom: envelope.mailFrom === false ? "" : envelope.mailFrom.address,
      recipients: envelope.rcptTo.map((r) => r.address),
      message,
      // smtp-server takes the parameter only on a TLS session (530 otherwise), where EHLO offers it.
      requireTls: envelope.requireTLS === true,
    });
    result = await sender.sendItem(
      // The door's one clock (as for the key above): the day's quota is counted in its UTC day.
      {
        account: user.account,
        policy,
        apiKeyId: user.keyId,
        now: (deps.now ?? (() => new Date()))(),
        source: "smtp",
        sandbox,
      },
      item,
    );
  } catch (error) {
    throw replyFor(error, deps);
  }
  if (result.status === "idempotency_key_mismatch") throw replyFor(MISMATCH, deps);
  deps.logger.info(
    { keyId: user.keyId, account: user.account, emailId: result.messageId, status: result.status },
    "smtp message accepted",
  );
  return result.status === "duplicate"
    ? `2.0.0 Duplicate of ${result.messageId}: accepted before, not sent again`
    : `2.0.0 Queued as ${result.messageId}`;
}
