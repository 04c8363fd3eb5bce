/** `kubectl mailroom test-send` and `trace <messageId>`: one email through the API, and its timeline. */
import { randomUUID } from "node:crypto";
import { type ApiTarget, callApi } from "./mailroom-api.ts";
import { formatTable } from "./table.ts";

const errorOf = (body: Record<string, unknown>) => `${body.error ?? "error"}: ${body.message ?? ""}`;

/** Sends one test email; prints its status and messageId. Returns the exit code. */
export async function testSend(
  target: ApiTarget,
  mail: { from: string; to: string; subject: string },
  out: NodeJS.WritableStream,
): Promise<number> {
  const answer = await callApi(target, "POST", "/v1/send", {
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: "A test email sent with `kubectl mailroom test-send`.",
    category: "transactional",
    idempotencyKey: `kubectl-mailroom-${randomUUID()}`,
  });
  if (answer.status >= 300) {
    process.stderr.write(
      `kubectl-mailroom: POST /v1/send answered HTTP ${answer.status}: ${errorOf(answer.body)}\n`,
    );
    return 1;
  }
  out.write(`${answer.body.status} messageId ${answer.body.messageId}\n`);
  out.write(`follow it: kubectl mailroom trace ${answer.body.messageId} (same --url and --key-secret)\n`);
  return 0;
}

interface Timeline {
  status?: string;
  from?: string;
  to?: string;
  failureReason?: string | null;
  lastSmtpResponse?: string | null;
  events?: { type: string; at: string; detail?: Record<string, unknown> }[];
}

/** Prints one email's state and timeline. Returns the exit code. */
export async function trace(
  target: ApiTarget,
  messageId: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const answer = await callApi(target, "GET", `/v1/emails/${encodeURIComponent(messageId)}`);
  if (answer.status >= 300) {
    process.stderr.write(
      `kubectl-mailroom: GET /v1/emails/${messageId} answered HTTP ${answer.status}: ${errorOf(answer.body)}\n`,
    );
    return 1;
  }
  const email = answer.body as Timeline;
  out.write(`${messageId}: ${email.status} (from ${email.from} to ${email.to})\n`);
  if (email.failureReason) out.write(`failure: ${email.failureReason}\n`);
  if (email.lastSmtpResponse) out.write(`last SMTP response: ${email.lastSmtpResponse}\n`);
  const rows = (email.events ?? []).map((e) => [e.at, e.type, JSON.stringify(e.detail ?? {})]);
  out.write(formatTable(["AT", "EVENT", "DETAIL"], rows));
  return 0;
}
