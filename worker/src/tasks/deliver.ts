import {
  claimForDelivery,
  type DeliverPayload,
  type EmailRecord,
  loadAttachments,
  recordDeliveryOutcome,
} from "@mailroom/core/emails";
import { withSpanFromCarrier } from "@mailroom/core/telemetry";
import type { Task } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";

declare global {
  namespace GraphileWorker {
    interface Tasks {
      deliver: DeliverPayload;
    }
  }
}

interface SmtpFailure {
  responseCode?: number;
  response?: string;
  message?: string;
}

/** True for a permanent SMTP refusal (5xx): the message will not be accepted on a retry. */
function isPermanent(error: SmtpFailure): boolean {
  return typeof error.responseCode === "number" && error.responseCode >= 500 && error.responseCode < 600;
}

/** The nodemailer message for an email as stored: what the log shows is exactly what is sent. */
async function composeMessage(deps: WorkerDeps, email: EmailRecord) {
  const attachments = await loadAttachments(deps.pool, email.id);
  return {
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    replyTo: email.replyTo.length > 0 ? email.replyTo : undefined,
    subject: email.subject,
    html: email.html ?? undefined,
    text: email.text ?? undefined,
    messageId: email.messageIdHeader,
    headers: { ...email.headers, "X-Mailroom-Category": email.category },
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  };
}

/**
 * Hands one email to SMTP. The claim re-checks the key under lock first; a revoked or expired key fails the
 * email without sending. A 2xx handover is `delivered`, a 5xx `bounced`; anything else is `deferred` and the
 * job is thrown back to graphile-worker to retry with its backoff, until the last attempt makes it `failed`.
 */
export function makeDeliverTask(deps: WorkerDeps): Task<"deliver"> {
  return async (payload, helpers) => {
    await withSpanFromCarrier(
      "deliver",
      payload.trace,
      { "mailroom.email_id": payload.emailId },
      async (span) => {
        const claimed = await claimForDelivery(deps.pool, payload.emailId);
        if (claimed.outcome !== "send") {
          span.setAttribute("mailroom.outcome", claimed.outcome);
          helpers.logger.info(`email ${payload.emailId} not sent: ${JSON.stringify(claimed)}`);
          if (claimed.outcome === "failed") deps.metrics.deliveryOutcomes.inc({ outcome: "failed" });
          return;
        }
        const email = claimed.email;
        const stopTimer = deps.metrics.deliveryDuration.startTimer();
        try {
          const info = await deps.transport.sendMail(await composeMessage(deps, email));
          await recordDeliveryOutcome(deps.pool, email.id, { status: "delivered", response: info.response });
          deps.metrics.deliveryOutcomes.inc({ outcome: "delivered" });
          span.setAttribute("mailroom.outcome", "delivered");
        } catch (caught) {
          const error = caught as SmtpFailure;
          const response = error.response ?? error.message ?? "unknown SMTP failure";
          if (isPermanent(error)) {
            await recordDeliveryOutcome(deps.pool, email.id, { status: "bounced", response });
            deps.metrics.deliveryOutcomes.inc({ outcome: "bounced" });
            span.setAttribute("mailroom.outcome", "bounced");
            return;
          }
          const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
          if (lastAttempt) {
            await recordDeliveryOutcome(deps.pool, email.id, {
              status: "failed",
              reason: "retries_exhausted",
              response,
            });
            deps.metrics.deliveryOutcomes.inc({ outcome: "failed" });
            return;
          }
          await recordDeliveryOutcome(deps.pool, email.id, { status: "deferred", response });
          deps.metrics.deliveryOutcomes.inc({ outcome: "deferred" });
          throw new Error(`delivery deferred: ${response}`);
        } finally {
          stopTimer();
        }
      },
    );
  };
}
