import { composeEmail, eightBitOf, toSevenBit } from "@mailroom/core/compose";
import { whileDatabaseAway } from "@mailroom/core/db";
import { type AttemptResult, type Claimed, createDeliveryStore } from "@mailroom/core/emails";
import type { DeliverPayload } from "@mailroom/core/jobs";
import { simulatorRetryPolicy } from "@mailroom/core/simulator";
import { injectTraceContext, withChildSpan, withSpanFromCarrier } from "@mailroom/core/telemetry";
import type { Logger, Task } from "graphile-worker";
import type { WorkerDeps } from "../deps.ts";
import { createCaptureTransport } from "../transports/capture/index.ts";
import { withSimulator } from "../transports/simulator/index.ts";
import type { OutboundMessage, RecipientResult } from "../transports/types.ts";
import { makeTlsRecording } from "./deliver-tls.ts";
import "./types.ts";

/**
 * One delivery, for both kinds of caller: graphile-worker's runners (through `deliverTask`) and the reserved
 * lane's own loop (worker/src/reserved-lane, ADR 0075), which passes the claim its take made in the same round
 * trip as the fetch. Without a claim, the email is claimed here.
 */
export type Delivery = (payload: DeliverPayload, logger: Logger, claim?: Claimed) => Promise<void>;

/** The `deliver` and `deliver_reserved` task of graphile-worker's runners: the delivery, claimed by it. */
export function deliverTask(delivery: Delivery): Task<"deliver" | "deliver_reserved"> {
  return (payload, helpers) => delivery(payload, helpers.logger);
}

/**
 * Hands one email to SMTP. The claim re-checks the key under lock and drops suppressed recipients; then the
 * message is composed from the stored email (`core/src/compose/`), DKIM-signed for its verified domain, and handed
 * to the transport (which picks the 8-bit or the 7-bit form per next hop), whose per-recipient report decides the outcome (delivered, bounced, deferred with a scheduled
 * retry, or failed past the retry horizon). SMTP trouble never throws: the job itself succeeds and a retry is
 * its own scheduled job, so graphile-worker's backoff does not stack on ours.
 */
export function makeDelivery(deps: WorkerDeps): Delivery {
  // Concurrent deliveries share their claim and record statements.
  const store = createDeliveryStore(deps.pool);
  const mode = deps.config.delivery.mode;
  const capture = createCaptureTransport(deps.pool);
  // Simulator recipients are answered before any transport sees them (ADR 0049), sandbox mail's too.
  const simulator = { pool: deps.pool, ...deps.config.simulator };
  const live = withSimulator(deps.transport, simulator);
  const recordTls = makeTlsRecording(deps);
  return async (payload, logger, claim) => {
    await withSpanFromCarrier(
      "deliver",
      payload.trace,
      { "mailroom.email_id": payload.emailId },
      async (span) => {
        // Claim and record wait out a database briefly away rather than fail (whileDatabaseAway says why).
        const claimed = claim ?? (await whileDatabaseAway(() => store.claim(payload.emailId)));
        if (claimed.outcome !== "send") {
          span.setAttribute(
            "mailroom.outcome",
            claimed.outcome === "failed" ? claimed.reason : claimed.status,
          );
          if (claimed.outcome === "failed")
            deps.metrics.deliveryOutcomes.inc({ outcome: "failed", reason: claimed.reason, transport: mode });
          logger.debug(`email ${payload.emailId} not sent: ${JSON.stringify(claimed)}`);
          return;
        }
        const { email, recipients } = claimed;
        // The steps of the attempt as span events: where a slow delivery's time went (bench/fairness reads them).
        span.setAttribute("mailroom.account", email.account);
        span.addEvent("claimed");
        // The one choice of transport (ADR 0047): a sandbox email, as decided at accept, is captured.
        const transport = claimed.sandbox ? "capture" : mode;
        const mailer = claimed.sandbox ? withSimulator(capture.for(email), simulator) : live;
        const stopTimer = deps.metrics.deliveryDuration.startTimer({ transport });
        const raw = await composeEmail(deps.pool, email, claimed.hasAttachments);
        span.addEvent("composed");
        const sign = (bytes: Buffer) =>
          deps.signer.prepare(email.account, email.fromAddress, bytes, email.id);
        const prepared = await sign(raw);
        span.addEvent("signed");
        span.setAttribute("mailroom.dkim", prepared.signed);
        const eightBit = eightBitOf(raw);
        const outbound: OutboundMessage = {
          envelope: { from: prepared.envelopeFrom, to: recipients },
          raw: prepared.raw,
          messageId: email.messageIdHeader,
          eightBit,
          attempt: email.attempts,
          ...(email.requireTls ? { requireTls: true } : {}),
          ...(email.tlsPolicyExempt ? { tlsPolicyExempt: email.tlsPolicyExempt } : {}),
          // Made (and signed) only when a next hop lacks 8BITMIME or SMTPUTF8: converted before signing.
          ...(eightBit.headers || eightBit.body
            ? { sevenBit: once(async () => (await sign(await toSevenBit(raw))).raw) }
            : {}),
        };
        const outcomes = await withChildSpan("smtp handover", undefined, async (handover) => {
          handover.setAttribute("mailroom.transport", transport);
          return mailer.send(outbound);
        });
        stopTimer();
        const handedOverAt = performance.now();
        const result = await whileDatabaseAway(() =>
          // The retry's job and the outcome's webhook events continue this attempt's trace.
          store.record({
            claimed,
            outcomes,
            policy: simulatorRetryPolicy(deps.config.delivery.retry, outcomes, deps.config.simulator),
            trace: injectTraceContext(span),
          }),
        );
        deps.metrics.handoverToRecord.observe((performance.now() - handedOverAt) / 1000);
        // Only once the attempt is durable: its TLS sessions for the day's report and the account's transit
        // counts (never throws).
        await recordTls({ account: email.account, sandbox: claimed.sandbox }, outcomes, logger);
        await whileDatabaseAway(() => mailer.afterRecord?.(outbound, outcomes) ?? Promise.resolve());
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

/** The promise of the first call, for every call: the 7-bit form is made at most once per attempt. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/**
 * Why an attempt ended as it did, for the outcome metric: a failure past the retry horizon, else the class
 * of the worst SMTP answer (5xx bounces, 4xx defers), `shaped` when every deferred recipient was held back
 * untried by its destination's shaping (ADR 0059), or `connection` when a recipient got no answer at all.
 */
function outcomeReason(result: AttemptResult, outcomes: readonly RecipientResult[]): string {
  if (result.status === "delivered") return "ok";
  if (result.status === "failed") return "retries_exhausted";
  const wanted = result.status === "bounced" ? "permanent" : "temporary";
  const unhappy = outcomes.filter((o) => o.status === wanted);
  if (unhappy.length > 0 && unhappy.every((o) => o.untried)) return "shaped";
  if (unhappy.some((o) => o.code === undefined)) return "connection";
  return result.status === "bounced" ? "smtp_5xx" : "smtp_4xx";
}
