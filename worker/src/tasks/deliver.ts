import { isDatabaseUnavailable } from "@mailroom/core/db";
import {
  type AttemptResult,
  createDeliveryStore,
  type DeliverPayload,
  loadAttachments,
} from "@mailroom/core/emails";
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
        const handedOverAt = performance.now();
        const result = await recordWhileDatabaseAway(() =>
          store.record({ claimed, outcomes, policy: deps.config.delivery.retry }),
        );
        deps.metrics.handoverToRecord.observe((performance.now() - handedOverAt) / 1000);
        deps.metrics.deliveryOutcomes.inc({ outcome: result.status });
        span.setAttribute("mailroom.outcome", result.status);
      },
    );
  };
}

/** How long a delivery keeps its outcome in hand while Postgres is away, and how often it tries again. */
const RECORD_PATIENCE_MS = 120_000;
const RECORD_RETRY_MS = 250;

/**
 * Records an attempt the receiver has already answered. Until it is recorded the email stays `sending`, and
 * a `sending` email is sent again by whoever runs its job next: the one window for a duplicate (issue 15).
 * Failing the task while the database is briefly away would open that window as wide as the outage, so the
 * outcome is kept and the record retried every quarter second until the database answers again (bounded,
 * after which the task fails and the job's retry re-sends, at least once).
 */
async function recordWhileDatabaseAway(record: () => Promise<AttemptResult>): Promise<AttemptResult> {
  const giveUpAt = Date.now() + RECORD_PATIENCE_MS;
  for (;;) {
    try {
      return await record();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
    }
  }
}
