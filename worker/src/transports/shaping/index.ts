import type { RecipientResult } from "../types.ts";
import {
  type Destination,
  type DestinationSnapshot,
  destinationOf,
  type ShapingConfig,
  type ShapingView,
} from "./destinations.ts";
import { isRateLimitReply } from "./signals.ts";
import { DestinationPace, type Finish } from "./state.ts";

export type { DestinationSnapshot, ShapingConfig, ShapingView } from "./destinations.ts";

/** Why a destination's recipient was deferred: its reply asked us to slow down, or we did not try it. */
type DeferralReason = "rate_limited" | "backed_off" | "busy" | "other";

/** The worker's series this module keeps (`core/src/telemetry/metrics.ts`), labels bounded by group. */
export interface ShapingMetrics {
  destinationDeferrals: { inc(labels: { destination: string; reason: DeferralReason }, value: number): void };
  destinationBackoffs: { inc(labels: { destination: string }): void };
  destinationsBackedOff: { set(labels: { destination: string }, value: number): void };
}

export interface ShaperOptions extends ShapingConfig {
  metrics?: ShapingMetrics | undefined;
  /** The clock, in ms, and the wait for a start the rate put off; tests drive both instead of waiting. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Where a shaped transaction's session comes from: its destination's pool key and limits in force now. */
export interface ShapedSlot {
  /** Sessions are pooled per destination: its key. */
  poolKey: string;
  /** Sessions the destination may have open now (its concurrency, lowered while backed off). */
  sessions: number;
  messagesPerConnection: number;
}

/** A transaction's send, in a slot of its destination. */
export type ShapedSend<T extends { results: RecipientResult[] }> = (slot: ShapedSlot) => Promise<T>;

interface Entry {
  destination: Destination;
  pace: DestinationPace;
  /** Deliveries waiting for a transaction in flight to end, first come first served. */
  waiters: Array<() => void>;
}

// Past this many destinations remembered, the idle ones are forgotten (MX hosts of no group are many); below
// it they are kept, with the transaction time their line is judged by.
const SWEEP_ABOVE = 1_000;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Traffic shaping of direct delivery per destination (ADR 0059): each SMTP transaction to an MX host waits
 * for a slot of its destination (concurrency, rate), and what the receiver answers adjusts that
 * destination's pace alone. A destination that is paused, or has no slot within the longest wait, is not
 * tried: its recipients are deferred at once (`temporary`), so the retry plan takes them and the delivery
 * slot goes to mail for other destinations. Limits and pace are this process's own.
 */
export function createShaper(options: ShaperOptions) {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const maxWaitMs = options.maxWaitSeconds * 1000;
  const backoff = { firstMs: options.backoffSeconds * 1000, maxMs: options.backoffMaxSeconds * 1000 };
  const entries = new Map<string, Entry>();
  const backedOff = new Map<string, number>();
  const listeners: Array<() => void> = [];

  const countBackedOff = (label: string, change: number) => {
    const count = (backedOff.get(label) ?? 0) + change;
    backedOff.set(label, count);
    options.metrics?.destinationsBackedOff.set({ destination: label }, count);
  };

  const entryOf = (mxHost: string): Entry => {
    const destination = destinationOf(mxHost, options);
    let entry = entries.get(destination.key);
    if (!entry) {
      if (entries.size > SWEEP_ABOVE) {
        for (const [key, e] of entries) {
          if (e.pace.isIdle(now()) && e.waiters.length === 0) entries.delete(key);
        }
      }
      entry = { destination, pace: new DestinationPace(destination.limits, backoff), waiters: [] };
      entries.set(destination.key, entry);
    }
    return entry;
  };

  /** A slot of the destination, or why there is none: paused, or none free within the longest wait. */
  async function admit(
    entry: Entry,
  ): Promise<{ startedMs: number } | { reason: "backed_off" | "busy"; response: string }> {
    const deadline = now() + maxWaitMs;
    let waited = false;
    for (;;) {
      const decision = entry.pace.tryStart(now(), Math.max(0, deadline - now()));
      if (decision.kind === "start") {
        if (decision.delayMs > 0) await sleep(decision.delayMs);
        // Paused while this start was due: the slot goes back and the loop defers.
        if (now() >= entry.pace.pausedUntilMs) return { startedMs: now() };
        entry.pace.cancel();
        continue;
      }
      if (decision.kind === "paused") {
        const until = new Date(decision.untilMs).toISOString();
        const after = entry.pace.lastReply ? ` after "${entry.pace.lastReply}"` : "";
        return {
          reason: "backed_off",
          response: `not attempted: destination ${nameOf(entry)} backed off until ${until}${after}`,
        };
      }
      // In line behind others, a delivery that could not expect its slot in time is deferred now, not
      // after holding one of the worker's delivery slots for the whole wait.
      const remaining = deadline - now();
      if (
        decision.kind === "too_soon" ||
        remaining <= 0 ||
        entry.pace.expectedWaitMs(entry.waiters.length + 1) > remaining
      ) {
        return {
          reason: "busy",
          response: `not attempted: destination ${nameOf(entry)} busy (no slot within ${options.maxWaitSeconds} s)`,
        };
      }
      // Woken when a transaction of the destination ends, or at the deadline (then the loop defers).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          const at = entry.waiters.indexOf(wake);
          if (at >= 0) entry.waiters.splice(at, 1);
          resolve();
        }, remaining);
        timer.unref();
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        // One woken but beaten to the slot by a newcomer goes back to the front of the line, not the end.
        if (waited) entry.waiters.unshift(wake);
        else entry.waiters.push(wake);
      });
      waited = true;
    }
  }

  function settle(entry: Entry, startedMs: number, results: RecipientResult[]): RecipientResult[] {
    const label = entry.destination.label;
    const limited = results.find((r) => r.status === "temporary" && isRateLimitReply(r.code, r.response));
    const how: Finish = limited
      ? "rate_limited"
      : results.some((r) => r.status === "accepted")
        ? "accepted"
        : "other";
    const wasLowered = entry.pace.level < 1;
    const pauseMs = entry.pace.finish(now(), startedMs, how, limited?.response.slice(0, 200));
    if (!wasLowered && entry.pace.level < 1) countBackedOff(label, 1);
    if (wasLowered && entry.pace.level === 1) countBackedOff(label, -1);
    if (pauseMs !== undefined || (wasLowered && entry.pace.level === 1))
      for (const listener of listeners) listener();
    if (pauseMs !== undefined) options.metrics?.destinationBackoffs.inc({ destination: label });
    // A paused destination lets all its waiters go (each is deferred at once), else the next in line.
    if (pauseMs === undefined) entry.waiters.shift()?.();
    else for (const wake of entry.waiters.splice(0)) wake();
    for (const r of results) {
      if (r.status !== "temporary") continue;
      const reason = isRateLimitReply(r.code, r.response) ? "rate_limited" : "other";
      options.metrics?.destinationDeferrals.inc({ destination: label, reason }, 1);
    }
    if (pauseMs === undefined) return results;
    // The timeline shows the reply and what it did: the destination paused, the email retried later.
    const note = `; destination ${nameOf(entry)} backed off for ${Math.round(pauseMs / 1000)} s`;
    return results.map((r) =>
      r.status === "temporary" && isRateLimitReply(r.code, r.response)
        ? { ...r, response: `${r.response}${note}` }
        : r,
    );
  }

  const view: ShapingView = {
    snapshot: () =>
      [...entries.values()].map(
        ({ destination, pace }): DestinationSnapshot => ({
          destination: destination.key,
          level: pace.level,
          concurrency: pace.concurrency(),
          ratePerMinute: destination.limits.ratePerMinute * pace.level,
          inFlight: pace.active,
          ...(pace.pausedUntilMs > now() ? { pausedUntilMs: pace.pausedUntilMs } : {}),
          lastReply: pace.lastReply,
        }),
      ),
    onChange: (listener) => {
      listeners.push(listener);
    },
  };

  return {
    ...view,
    /**
     * Runs one transaction to `mxHost` under its destination's limits and lets the outcome adjust them.
     * Not attempted (paused or busy): every recipient `temporary`, with a response saying why.
     */
    async run<T extends { results: RecipientResult[] }>(
      mxHost: string,
      recipients: readonly string[],
      send: ShapedSend<T>,
      notAttempted: (results: RecipientResult[]) => T,
    ): Promise<T> {
      const entry = entryOf(mxHost);
      const slot = await admit(entry);
      if (!("startedMs" in slot)) {
        const labels = { destination: entry.destination.label, reason: slot.reason };
        options.metrics?.destinationDeferrals.inc(labels, recipients.length);
        return notAttempted(
          recipients.map((recipient) => ({
            recipient,
            status: "temporary",
            response: slot.response,
            untried: true,
            destination: entry.destination.key,
          })),
        );
      }
      let outcome: T | undefined;
      try {
        outcome = await send({
          poolKey: entry.destination.key,
          sessions: entry.pace.concurrency(),
          messagesPerConnection: entry.destination.limits.messagesPerConnection,
        });
        const results = settle(entry, slot.startedMs, outcome.results);
        return { ...outcome, results: results.map((r) => ({ ...r, destination: entry.destination.key })) };
      } finally {
        if (!outcome) settle(entry, slot.startedMs, []);
      }
    },
  };
}

/** The destination as the timeline names it: the group, or the MX host. */
function nameOf(entry: Entry): string {
  return entry.destination.key.replace(/^(group|host):/, "");
}
