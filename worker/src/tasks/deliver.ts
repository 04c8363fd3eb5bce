import { whileDatabaseAway } from "@mailroom/core/db";
import {
  type Attachment,
  type AttemptResult,
  createDeliveryStore,
  type EmailRecord,
  loadAttachments,
  loadRawMessage,
  type RecipientOutcome,
} from "@mailroom/core/emails";
import { injectTraceContext, withChildSpan, withSpanFromCarrier } from "@mailroom/core/telemetry";
import type { Task } from "graphile-worker";
import * as base64 from "nodemailer/lib/base64";
import MailComposer from "nodemailer/lib/mail-composer";
import type MimeNode from "nodemailer/lib/mime-node";
import * as qp from "nodemailer/lib/qp";
import "./types.ts";
import type { WorkerDeps } from "../deps.ts";

/**
 * The RFC 5322 message for an email exactly as stored (what the log shows is what is sent). Bcc recipients
 * travel only in the envelope, never in a header. The Message-ID is the email's stable one, so a repeated
 * handover carries the same id. nodemailer's MailComposer builds the MIME tree and every header (address
 * and encoded-word encoding, folding, boundaries, transfer encodings); the bytes are then written in one
 * synchronous pass, as MimeNode's own stream would write them, without a stream per MIME part (ADR 0023).
 */
function composeMessage(email: EmailRecord, attachments: readonly Attachment[]): Buffer {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc.length > 0 ? email.cc : undefined,
    replyTo: email.replyTo.length > 0 ? email.replyTo : undefined,
    subject: email.subject,
    html: email.html ?? undefined,
    text: email.text ?? undefined,
    messageId: email.messageIdHeader,
    date: email.createdAt,
    headers: { ...email.headers, "X-Mailroom-Category": email.category },
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  });
  return renderMime(composer.compile());
}

/** A MIME tree's bytes, exactly as `MimeNode#build` streams them. */
export function renderMime(root: MimeNode): Buffer {
  const chunks: Array<string | Buffer> = [];
  writeNode(root, chunks);
  // As MimeNode's LastNewline: the message ends with a line break.
  const last = chunks.findLast((c) => c.length > 0);
  const lastByte = typeof last === "string" ? last.charCodeAt(last.length - 1) : last?.at(-1);
  if (lastByte !== 0x0a) chunks.push(lastByte === 0x0d ? "\n" : "\r\n");
  // One copy into the message's buffer; strings as UTF-8, as a stream writes them.
  const raw = Buffer.allocUnsafe(chunks.reduce((n, c) => n + Buffer.byteLength(c), 0));
  let at = 0;
  for (const chunk of chunks) at += typeof chunk === "string" ? raw.write(chunk, at) : chunk.copy(raw, at);
  return raw;
}

/** One MIME node as `MimeNode#stream` writes it: headers, the encoded body, then its children. */
function writeNode(node: MimeNode, chunks: Array<string | Buffer>): void {
  const encoding = node.getTransferEncoding();
  chunks.push(`${node.buildHeaders()}\r\n\r\n`);
  const { content } = node;
  if (content) {
    if (typeof content !== "string" && !Buffer.isBuffer(content)) {
      throw new Error("a composed MIME part holds a string or a buffer");
    }
    if (encoding === "base64") chunks.push(base64.wrap(base64.encode(content), 76));
    else if (encoding === "quoted-printable") chunks.push(quotedPrintable(content));
    else chunks.push(content);
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    chunks.push(`${i > 0 ? "\r\n" : ""}--${node.boundary}\r\n`);
    writeNode(child, chunks);
  });
  chunks.push(`\r\n--${node.boundary}--\r\n`);
}

// nodemailer's QP encoder works through its input this many bytes at a time.
const QP_SLICE = 64 * 1024;
const isBlank = (byte: number | undefined) => byte === 0x20 || byte === 0x09;

/**
 * A text body in quoted-printable, line for line as nodemailer's `qp.Encoder` streams it: slices of 64 KiB,
 * each encoded knowing the byte after it, the trailing blanks held back to the end (a blank ending the body
 * is encoded), each slice wrapped at 76 with the unfinished last line carried into the next.
 */
function quotedPrintable(content: string | Buffer): string {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  let end = bytes.length;
  while (end > 0 && isBlank(bytes[end - 1])) end--;
  if (bytes.length - end > QP_SLICE) end = bytes.length;
  let done = "";
  let line = "";
  const emit = (encoded: string) => {
    const wrapped = qp.wrap(line + encoded, 76);
    const cut = wrapped.lastIndexOf("\n") + 1;
    done += wrapped.slice(0, cut);
    line = wrapped.slice(cut);
  };
  for (let start = 0; start < end; start += QP_SLICE) {
    const stop = Math.min(start + QP_SLICE, end);
    const next = stop < end ? bytes[stop] : undefined;
    // Blanks before more text on the same line stay literal; qp.encode alone would take them for a line end.
    const lineGoesOn = next !== undefined && next !== 0x0a && next !== 0x0d;
    let blanks = stop;
    while (lineGoesOn && blanks > start && isBlank(bytes[blanks - 1])) blanks--;
    emit(qp.encode(bytes.subarray(start, blanks)) + bytes.toString("latin1", blanks, stop));
  }
  if (end < bytes.length) emit(qp.encode(bytes.subarray(end)));
  return done + line;
}

/** The header block of a message: up to its first empty line. */
function headerBlock(raw: Buffer): string {
  const end = raw.indexOf("\r\n\r\n");
  return raw.subarray(0, end < 0 ? raw.length : end + 2).toString("latin1");
}

/**
 * A message submitted over SMTP, as sent: the client's bytes (its MIME structure, attachments and non-ASCII
 * untouched; the Bcc header was dropped at submission), with the Message-ID and Date a submission server
 * adds when the client left them out (RFC 6409 §8). The Message-ID is the email's stable one, as for an
 * API send.
 */
function composeSubmitted(email: EmailRecord, raw: Buffer): Buffer {
  const headers = headerBlock(raw);
  const added: string[] = [];
  if (!/^message-id[ \t]*:/im.test(headers)) added.push(`Message-ID: ${email.messageIdHeader}\r\n`);
  if (!/^date[ \t]*:/im.test(headers)) {
    added.push(`Date: ${email.createdAt.toUTCString().replace("GMT", "+0000")}\r\n`);
  }
  return added.length === 0 ? raw : Buffer.concat([Buffer.from(added.join(""), "latin1"), raw]);
}

/** The RFC 5322 message of an email: composed from its fields, or the one its SMTP client submitted. */
async function messageOf(deps: WorkerDeps, email: EmailRecord, hasAttachments: boolean): Promise<Buffer> {
  if (email.source === "smtp") {
    const submitted = await loadRawMessage(deps.pool, email.id);
    if (!submitted) throw new Error(`email ${email.id} was submitted over SMTP but its message is missing`);
    return composeSubmitted(email, submitted);
  }
  const attachments = hasAttachments ? await loadAttachments(deps.pool, email.id) : [];
  return composeMessage(email, attachments);
}

/**
 * Hands one email to SMTP. The claim re-checks the key under lock and drops suppressed recipients; then the
 * message is composed from the stored email, DKIM-signed for its verified domain, and handed to the
 * transport, whose per-recipient report decides the outcome (delivered, bounced, deferred with a scheduled
 * retry, or failed past the retry horizon). SMTP trouble never throws: the job itself succeeds and a retry is
 * its own scheduled job, so graphile-worker's backoff does not stack on ours.
 */
export function makeDeliverTask(deps: WorkerDeps): Task<"deliver"> {
  // Concurrent deliveries share their claim and record statements.
  const store = createDeliveryStore(deps.pool);
  const transport = deps.config.delivery.mode;
  return async (payload, helpers) => {
    await withSpanFromCarrier(
      "deliver",
      payload.trace,
      { "mailroom.email_id": payload.emailId },
      async (span) => {
        // Claim and record wait out a database briefly away rather than fail (whileDatabaseAway says why).
        const claimed = await whileDatabaseAway(() => store.claim(payload.emailId));
        if (claimed.outcome !== "send") {
          span.setAttribute(
            "mailroom.outcome",
            claimed.outcome === "failed" ? claimed.reason : claimed.status,
          );
          if (claimed.outcome === "failed")
            deps.metrics.deliveryOutcomes.inc({ outcome: "failed", reason: claimed.reason, transport });
          helpers.logger.debug(`email ${payload.emailId} not sent: ${JSON.stringify(claimed)}`);
          return;
        }
        const { email, recipients } = claimed;
        const stopTimer = deps.metrics.deliveryDuration.startTimer({ transport });
        const raw = await messageOf(deps, email, claimed.hasAttachments);
        const prepared = await deps.signer.prepare(email.account, email.fromAddress, raw, email.id);
        span.setAttribute("mailroom.dkim", prepared.signed);
        const outcomes = await withChildSpan("smtp handover", undefined, async (handover) => {
          handover.setAttribute("mailroom.transport", transport);
          return deps.transport.send({
            envelope: { from: prepared.envelopeFrom, to: recipients },
            raw: prepared.raw,
            messageId: email.messageIdHeader,
          });
        });
        stopTimer();
        const handedOverAt = performance.now();
        const result = await whileDatabaseAway(() =>
          // The retry's job and the outcome's webhook events continue this attempt's trace.
          store.record({
            claimed,
            outcomes,
            policy: deps.config.delivery.retry,
            trace: injectTraceContext(span),
          }),
        );
        deps.metrics.handoverToRecord.observe((performance.now() - handedOverAt) / 1000);
        deps.metrics.deliveryOutcomes.inc({
          outcome: result.status,
          reason: outcomeReason(result, outcomes),
          transport,
        });
        span.setAttribute("mailroom.outcome", result.status);
      },
    );
  };
}

/**
 * Why an attempt ended as it did, for the outcome metric: a failure past the retry horizon, else the class
 * of the worst SMTP answer (5xx bounces, 4xx defers) or `connection` when a recipient got no answer at all.
 */
function outcomeReason(result: AttemptResult, outcomes: readonly RecipientOutcome[]): string {
  if (result.status === "delivered") return "ok";
  if (result.status === "failed") return "retries_exhausted";
  const wanted = result.status === "bounced" ? "permanent" : "temporary";
  const unhappy = outcomes.filter((o) => o.status === wanted);
  if (unhappy.some((o) => o.code === undefined)) return "connection";
  return result.status === "bounced" ? "smtp_5xx" : "smtp_4xx";
}
