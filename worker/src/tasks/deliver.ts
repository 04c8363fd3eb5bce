import {
  type AttemptResult,
  createDeliveryStore,
  type DeliverPayload,
  loadAttachments,
  type RecipientOutcome,
} from "@mailroom/core/emails";
import { withChildSpan, withSpanFromCarrier } from "@mailroom/core/telemetry";
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
  const transport = deps.config.delivery.mode;
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
          if (claimed.outcome === "failed")
            deps.metrics.deliveryOutcomes.inc({ outcome: "failed", reason: claimed.reason, transport });
          helpers.logger.debug(`email ${payload.emailId} not sent: ${JSON.stringify(claimed)}`);
          return;
        }
        const { email, recipients } = claimed;
        const stopTimer = deps.metrics.deliveryDuration.startTimer({ transport });
        const attachments = claimed.hasAttachments ? await loadAttachments(deps.pool, email.id) : [];
        const raw = await composeMessage(email, attachments);
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
        const result = await store.record({ claimed, outcomes, policy: deps.config.delivery.retry });
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
