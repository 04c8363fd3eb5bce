import type { DestinationLimits } from "./destinations.ts";

/** The share of the configured limits a destination falls to at most (concurrency never below 1). */
const MIN_LEVEL = 1 / 16;
/** What each accepted transaction after a pause gives back: from half the limits to all in 10 successes. */
const RECOVERY_STEP = 0.05;

/** How a destination's pauses grow: the first lasts `firstMs`, each further one in a row twice as long. */
export interface BackoffPlan {
  firstMs: number;
  maxMs: number;
}

/** What a delivery may do now (`tryStart`). */
export type StartDecision =
  | { kind: "start"; delayMs: number }
  | { kind: "paused"; untilMs: number }
  | { kind: "full" }
  | { kind: "too_soon"; delayMs: number };

/** How a transaction ended, as far as its destination's pace goes. */
export type Finish = "accepted" | "rate_limited" | "other";

/**
 * One destination's pace, decided from the time given (never read here): the transactions in flight under
 * its concurrency, the next start its rate allows, and its adaptive level. A rate-limit reply halves the
 * level (multiplicative decrease) and pauses the destination; accepted transactions after the pause raise it
 * by a step (additive increase) back to the configured limits, as TCP does with a congested path.
 */
export class DestinationPace {
  /** The share of the configured concurrency and rate in force (1: all). */
  level = 1;
  active = 0;
  pausedUntilMs = 0;
  /** The rate-limit reply that caused the pause, for the timeline of the mail deferred meanwhile. */
  lastReply = "";
  private nextStartMs = 0;
  private streak = 0;
  private lastBackoffMs = Number.NEGATIVE_INFINITY;
  /** Moving average of how long a transaction holds its slot; undefined until one has ended. */
  private averageMs: number | undefined;
  readonly limits: DestinationLimits;
  private readonly backoff: BackoffPlan;

  constructor(limits: DestinationLimits, backoff: BackoffPlan) {
    this.limits = limits;
    this.backoff = backoff;
  }

  concurrency(): number {
    return Math.max(1, Math.floor(this.limits.concurrency * this.level));
  }

  /** Milliseconds between two starts; 0 without a configured rate. */
  intervalMs(): number {
    return this.limits.ratePerMinute > 0 ? 60_000 / (this.limits.ratePerMinute * this.level) : 0;
  }

  /** Takes a slot when there is one within `maxWaitMs` (in flight at once, and the rate's next start). */
  tryStart(nowMs: number, maxWaitMs: number): StartDecision {
    if (nowMs < this.pausedUntilMs) return { kind: "paused", untilMs: this.pausedUntilMs };
    if (this.active >= this.concurrency()) return { kind: "full" };
    const startMs = Math.max(nowMs, this.nextStartMs);
    const delayMs = startMs - nowMs;
    if (delayMs > maxWaitMs) return { kind: "too_soon", delayMs };
    this.active += 1;
    this.nextStartMs = startMs + this.intervalMs();
    return { kind: "start", delayMs };
  }

  /** Gives back a slot taken but not used (the destination was paused while its start was due). */
  cancel(): void {
    this.active -= 1;
  }

  /**
   * Gives the slot back. A rate-limit reply to a transaction started after the last backoff backs the
   * destination off (and returns the pause, in ms); replies to transactions that were already under way
   * then are the same burst, already answered.
   */
  finish(nowMs: number, startedMs: number, how: Finish, reply = ""): number | undefined {
    this.active -= 1;
    const tookMs = Math.max(0, nowMs - startedMs);
    this.averageMs = this.averageMs === undefined ? tookMs : 0.8 * this.averageMs + 0.2 * tookMs;
    if (how === "rate_limited" && startedMs >= this.lastBackoffMs) {
      this.streak += 1;
      this.level = Math.max(MIN_LEVEL, this.level / 2);
      const pauseMs = Math.min(this.backoff.maxMs, this.backoff.firstMs * 2 ** (this.streak - 1));
      this.pausedUntilMs = nowMs + pauseMs;
      this.nextStartMs = Math.max(this.nextStartMs, this.pausedUntilMs);
      this.lastBackoffMs = nowMs;
      this.lastReply = reply;
      return pauseMs;
    }
    if (how === "accepted" && this.level < 1 && nowMs >= this.pausedUntilMs) {
      this.level = Math.min(1, this.level + RECOVERY_STEP);
      // Back at full pace: the next rate-limit reply starts the pauses over from the first.
      if (this.level === 1) this.streak = 0;
    }
    return undefined;
  }

  /**
   * How long the `position`-th delivery in line (1: the next) can expect to wait for a slot: it goes when
   * `position` transactions in flight have ended, `concurrency` at a time. 0 while nothing is measured yet.
   */
  expectedWaitMs(position: number): number {
    return Math.ceil(position / this.concurrency()) * (this.averageMs ?? 0);
  }

  /** Nothing in flight, nothing reserved ahead, nothing lowered: the state can be forgotten. */
  isIdle(nowMs: number): boolean {
    return this.active === 0 && this.level === 1 && this.nextStartMs <= nowMs && nowMs >= this.pausedUntilMs;
  }
}
