import { createDeliveryStore, type DeliverPayload, loadAttachments } from "@mailroom/core/emails";
import { withSpanFromCarrier } from "@mailroom/core/telemetry";
import type { Task } from "graphile-worker";
import { composeMessage } from "../compose.ts";
import type { WorkerDeps } from "../deps.ts";

declare global {
  namespace GraphileWorker {
    interface Tasks {
      deliver: DeliverPayload;
    }
  }
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
  return async (payload, helpers) => {
    await withSpanFromCarrier(
      "deliver",
      payload.trace,
      { "mailroom.email_id": payload.emailId },
      async (span) => {
        const claimed = await store.claim(payload.emailId);
        if (claimed.outcome !== "send") {
          span.setAttribute(
            "mailroom.outcome",
            claimed.outcome === "failed" ? claimed.reason : claimed.status,
          );
          if (claimed.outcome === "failed") deps.metrics.deliveryOutcomes.inc({ outcome: "failed" });
          helpers.logger.debug(`email ${payload.emailId} not sent: ${JSON.stringify(claimed)}`);
          return;
        }
        const { email, recipients } = claimed;
        const stopTimer = deps.metrics.deliveryDuration.startTimer();
        const attachments = claimed.hasAttachments ? await loadAttachments(deps.pool, email.id) : [];
        const raw = await composeMessage(email, attachments);
        const prepared = await deps.signer.prepare(email.account, email.fromAddress, raw, email.id);
        span.setAttribute("mailroom.dkim", prepared.signed);
        const outcomes = await deps.transport.send({
          envelope: { from: prepared.envelopeFrom, to: recipients },
          raw: prepared.raw,
          messageId: email.messageIdHeader,
        });
        stopTimer();
        const result = await store.record({ claimed, outcomes, policy: deps.config.delivery.retry });
        deps.metrics.deliveryOutcomes.inc({ outcome: result.status });
        span.setAttribute("mailroom.outcome", result.status);
      },
    );
  };
}
