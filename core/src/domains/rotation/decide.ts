import type { DkimAlgorithm } from "../types.ts";

/** Where a key stands in its rotation (see migration 0050). */
export type DkimKeyState = "pending" | "active" | "retiring";

/** What the decider needs to know about one key. */
export interface RotationKey {
  id: string;
  selector: string;
  algorithm: DkimAlgorithm;
  state: DkimKeyState;
  createdAt: Date;
  /** Pending keys: since when DNS serves the key (null: not seen served at the last look). */
  servedAt: Date | null;
  activatedAt: Date | null;
  /** Retiring keys: when the selector is withdrawn from DNS and the key deleted. */
  withdrawAt: Date | null;
}

/** How long each wait lasts; the worker derives it from its config (`rotationPolicy`). */
export interface RotationPolicy {
  /** A pending key must have been served this long before it signs (secondaries catching up). */
  settleMs: number;
  /** How long a retired selector stays published after signing moved on. */
  retireAfterMs: number;
  /** How often a pending key not yet served is looked up again. */
  recheckMs: number;
}

export interface RotationInput {
  /** Only a verified domain starts a rotation: an unverified one signs nothing. */
  verified: boolean;
  /** 0: no scheduled rotation. */
  intervalDays: number;
  /** A rotation asked for (API, annotation) and not started yet. */
  request: { at: Date; compromised: boolean } | null;
  keys: readonly RotationKey[];
  now: Date;
  policy: RotationPolicy;
}

/** The phase of a domain's key set: what is going on. */
export type RotationPhase = "stable" | "publishing" | "retiring";

/** One thing to do now; `wait` means nothing until `nextCheckAt`. */
export type RotationStep =
  | { kind: "generate"; algorithms: DkimAlgorithm[] }
  | { kind: "activate"; keyIds: string[]; retireKeyIds: string[]; withdrawAt: Date }
  | { kind: "withdraw"; keyIds: string[] }
  /** Key compromise: new keys sign at once, every other key is withdrawn at once. */
  | { kind: "replace"; algorithms: DkimAlgorithm[]; withdrawKeyIds: string[] }
  | { kind: "wait"; reason: string };

export interface RotationDecision {
  phase: RotationPhase;
  step: RotationStep;
  /** When to look again if nothing else asks sooner. */
  nextCheckAt: Date;
}

const DAY_MS = 86_400_000;
// With rotation off, the job still looks daily: cheap, and a forgotten request cannot wait forever.
const IDLE_RECHECK_MS = DAY_MS;

/** RSA-2048 always signs; Ed25519 is a second signature only, never alone (Microsoft and Yahoo). */
function algorithmsAfter(active: readonly RotationKey[]): DkimAlgorithm[] {
  return active.some((k) => k.algorithm === "ed25519") ? ["rsa", "ed25519"] : ["rsa"];
}

function phaseOf(keys: readonly RotationKey[]): RotationPhase {
  if (keys.some((k) => k.state === "pending")) return "publishing";
  if (keys.some((k) => k.state === "retiring")) return "retiring";
  return "stable";
}

function earliest(...dates: (Date | undefined)[]): Date {
  const times = dates.filter((d): d is Date => d !== undefined).map((d) => d.getTime());
  return new Date(Math.min(...times));
}

/**
 * Decides the next step of a domain's DKIM rotation: the one place that does (the worker runs it, the API
 * runs it for a rotate-now, the operator only publishes and reports). Steps, in order of urgency:
 * a compromise replaces the keys at once; a retiring key past its date is withdrawn; a pending set that DNS
 * has served for `settleMs` starts signing (the active keys retire until `now + retireAfterMs`); a domain
 * whose newest key is older than its interval, or that was asked to, generates a pending set. The pending
 * set is RSA (plus Ed25519 when the domain signs with Ed25519 now), so mail is never signed by Ed25519 alone.
 */
export function decideRotation(input: RotationInput): RotationDecision {
  const { keys, now, policy } = input;
  const phase = phaseOf(keys);
  const pending = keys.filter((k) => k.state === "pending");
  const active = keys.filter((k) => k.state === "active");
  const retiring = keys.filter((k) => k.state === "retiring");
  const at = (step: RotationStep, next: Date): RotationDecision => ({ phase, step, nextCheckAt: next });
  const soon = new Date(now.getTime() + policy.recheckMs);

  if (input.request?.compromised) {
    return at(
      {
        kind: "replace",
        algorithms: algorithmsAfter(active),
        withdrawKeyIds: keys.map((k) => k.id),
      },
      now,
    );
  }
  const due = retiring.filter((k) => (k.withdrawAt?.getTime() ?? 0) <= now.getTime());
  if (due.length > 0) return at({ kind: "withdraw", keyIds: due.map((k) => k.id) }, now);
  const nextWithdrawal =
    retiring.length > 0 ? earliest(...retiring.map((k) => k.withdrawAt ?? now)) : undefined;

  if (pending.length > 0) {
    const settledAt = (k: RotationKey) => (k.servedAt ? k.servedAt.getTime() + policy.settleMs : Infinity);
    const ready = Math.max(...pending.map(settledAt));
    const hasRsa = pending.some((k) => k.algorithm === "rsa");
    if (hasRsa && ready <= now.getTime()) {
      return at(
        {
          kind: "activate",
          keyIds: pending.map((k) => k.id),
          retireKeyIds: active.map((k) => k.id),
          withdrawAt: new Date(now.getTime() + policy.retireAfterMs),
        },
        now,
      );
    }
    const unserved = pending.filter((k) => !k.servedAt).map((k) => k.selector);
    const reason =
      unserved.length > 0
        ? `waiting until DNS serves ${unserved.join(", ")}`
        : "DNS serves the new keys; letting them settle before they sign";
    const next = Number.isFinite(ready) ? new Date(Math.min(ready, soon.getTime())) : soon;
    return at({ kind: "wait", reason }, earliest(next, nextWithdrawal));
  }

  if (input.verified) {
    if (input.request) return at({ kind: "generate", algorithms: algorithmsAfter(active) }, now);
    const newest = Math.max(...active.map((k) => (k.activatedAt ?? k.createdAt).getTime()));
    if (input.intervalDays > 0 && active.length > 0) {
      const dueAt = newest + input.intervalDays * DAY_MS;
      if (dueAt <= now.getTime()) return at({ kind: "generate", algorithms: algorithmsAfter(active) }, now);
      return at(
        { kind: "wait", reason: "the active keys are within their interval" },
        earliest(new Date(dueAt), nextWithdrawal),
      );
    }
  }
  const reason = input.verified ? "scheduled rotation is off" : "the domain is not verified";
  return at({ kind: "wait", reason }, earliest(new Date(now.getTime() + IDLE_RECHECK_MS), nextWithdrawal));
}

/** Receivers verify on arrival, but forwarders, list servers and report processors may look days later. */
const VERIFICATION_LAG_MS = 7 * DAY_MS;

/**
 * The production waits: a new key signs once DNS has served it for an hour (external-dns syncs, zone
 * transfers to secondaries); an old selector stays published for the delivery retry horizon (a message
 * signed just before the switch may still be retried until then) plus a week of verification lag.
 */
export function rotationPolicyFor(retryHorizonSeconds: number): RotationPolicy {
  return {
    settleMs: 3_600_000,
    retireAfterMs: retryHorizonSeconds * 1000 + VERIFICATION_LAG_MS,
    recheckMs: 10 * 60_000,
  };
}
