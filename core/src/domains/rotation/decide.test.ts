import { describe, expect, it } from "vitest";
import { decideRotation, type RotationInput, type RotationKey, rotationPolicyFor } from "./decide.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const policy = { settleMs: HOUR, retireAfterMs: 12 * DAY, recheckMs: 10 * 60_000 };

function key(id: string, state: RotationKey["state"], extra: Partial<RotationKey> = {}): RotationKey {
  return {
    id,
    selector: `sel-${id}`,
    algorithm: "rsa",
    state,
    createdAt: T0,
    servedAt: null,
    activatedAt: state === "active" ? T0 : null,
    withdrawAt: null,
    ...extra,
  };
}

function input(keys: RotationKey[], now: Date, extra: Partial<RotationInput> = {}): RotationInput {
  return { verified: true, intervalDays: 180, request: null, keys, now, policy, ...extra };
}

describe("decideRotation", () => {
  it("waits while the active key is within its interval, until exactly when it comes due", () => {
    const decision = decideRotation(input([key("a", "active")], at(10 * DAY)));
    expect(decision.phase).toBe("stable");
    expect(decision.step.kind).toBe("wait");
    expect(decision.nextCheckAt).toEqual(at(180 * DAY));
  });

  it("generates an RSA key under a new selector once the interval has passed", () => {
    const decision = decideRotation(input([key("a", "active")], at(180 * DAY)));
    expect(decision.step).toEqual({ kind: "generate", algorithms: ["rsa"] });
  });

  it("keeps Ed25519 only beside RSA: a domain signing with both gets both, never Ed25519 alone", () => {
    const keys = [key("a", "active"), key("b", "active", { algorithm: "ed25519" })];
    expect(decideRotation(input(keys, at(181 * DAY))).step).toEqual({
      kind: "generate",
      algorithms: ["rsa", "ed25519"],
    });
    const pendingEdOnly = [key("a", "active"), key("p", "pending", { algorithm: "ed25519", servedAt: T0 })];
    expect(decideRotation(input(pendingEdOnly, at(DAY))).step.kind).toBe("wait");
  });

  it("never rotates on schedule with interval 0, but a request still rotates", () => {
    const keys = [key("a", "active")];
    const off = decideRotation(input(keys, at(1000 * DAY), { intervalDays: 0 }));
    expect(off.step).toEqual({ kind: "wait", reason: "scheduled rotation is off" });
    const asked = decideRotation(
      input(keys, at(DAY), { intervalDays: 0, request: { at: at(DAY), compromised: false } }),
    );
    expect(asked.step.kind).toBe("generate");
  });

  it("starts nothing for a domain that is not verified", () => {
    const decision = decideRotation(
      input([key("a", "active")], at(400 * DAY), {
        verified: false,
        request: { at: T0, compromised: false },
      }),
    );
    expect(decision.step).toEqual({ kind: "wait", reason: "the domain is not verified" });
  });

  it("waits for DNS to serve a pending key, then for it to settle, then switches signing", () => {
    const active = key("a", "active");
    const unserved = decideRotation(input([active, key("p", "pending")], at(DAY)));
    expect(unserved.phase).toBe("publishing");
    expect(unserved.step).toEqual({ kind: "wait", reason: "waiting until DNS serves sel-p" });
    expect(unserved.nextCheckAt).toEqual(at(DAY + policy.recheckMs));

    const served = [active, key("p", "pending", { servedAt: at(DAY) })];
    const settling = decideRotation(input(served, at(DAY + HOUR / 2)));
    expect(settling.step.kind).toBe("wait");
    expect(settling.nextCheckAt).toEqual(at(DAY + HOUR / 2 + policy.recheckMs));

    const switching = decideRotation(input(served, at(DAY + HOUR)));
    expect(switching.step).toEqual({
      kind: "activate",
      keyIds: ["p"],
      retireKeyIds: ["a"],
      withdrawAt: at(DAY + HOUR + policy.retireAfterMs),
    });
  });

  it("switches a pair only when every pending key is served", () => {
    const keys = [
      key("a", "active"),
      key("p", "pending", { servedAt: T0 }),
      key("q", "pending", { algorithm: "ed25519" }),
    ];
    expect(decideRotation(input(keys, at(DAY))).step).toEqual({
      kind: "wait",
      reason: "waiting until DNS serves sel-q",
    });
  });

  it("keeps a retiring selector published until its date, then withdraws it", () => {
    const keys = [
      key("n", "active", { activatedAt: at(DAY) }),
      key("a", "retiring", { withdrawAt: at(13 * DAY) }),
    ];
    const before = decideRotation(input(keys, at(12 * DAY)));
    expect(before.phase).toBe("retiring");
    expect(before.step.kind).toBe("wait");
    expect(before.nextCheckAt).toEqual(at(13 * DAY));
    expect(decideRotation(input(keys, at(13 * DAY))).step).toEqual({ kind: "withdraw", keyIds: ["a"] });
  });

  it("withdraws a due retiring key before anything else, even during the next rotation", () => {
    const keys = [
      key("n", "active"),
      key("a", "retiring", { withdrawAt: at(DAY) }),
      key("p", "pending", { servedAt: T0 }),
    ];
    expect(decideRotation(input(keys, at(2 * DAY))).step).toEqual({ kind: "withdraw", keyIds: ["a"] });
  });

  it("on a compromise replaces every key at once, whatever the phase", () => {
    const keys = [key("a", "active"), key("r", "retiring", { withdrawAt: at(9 * DAY) }), key("p", "pending")];
    const decision = decideRotation(input(keys, at(DAY), { request: { at: at(DAY), compromised: true } }));
    expect(decision.step).toEqual({ kind: "replace", algorithms: ["rsa"], withdrawKeyIds: ["a", "r", "p"] });
  });

  it("keeps old selectors for the retry horizon plus a week in production", () => {
    const production = rotationPolicyFor(5 * 86_400);
    expect(production.retireAfterMs).toBe(12 * DAY);
    expect(production.settleMs).toBe(HOUR);
  });
});
