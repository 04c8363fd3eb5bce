import { describe, expect, it } from "vitest";
import { checkChaosRules, decideChaos } from "./chaos.ts";

const always = () => 0;
const never = () => 0.999;

describe("decideChaos", () => {
  it("refuses matching recipients at RCPT (exact, any case, or a whole @domain) and lets the others through", () => {
    const out = decideChaos(
      [
        { recipient: "Flaky@Example.test", at: "rcpt", action: "reply", code: 451 },
        { recipient: "@gone.test", at: "rcpt", action: "reply", code: 550 },
      ],
      ["flaky@example.test", "ok@example.test", "a@gone.test"],
      always,
    );
    expect([...out.refused]).toEqual([
      ["flaky@example.test", 451],
      ["a@gone.test", 550],
    ]);
    expect(out.failed).toBeUndefined();
  });

  it("fails the whole transaction at DATA or on a dropped connection; the first such rule wins", () => {
    const data = decideChaos([{ at: "data", action: "reply", code: 554 }], ["a@x.test"], always);
    expect(data.failed).toMatchObject({ code: 554 });
    const drop = decideChaos(
      [
        { at: "rcpt", action: "drop" },
        { at: "data", action: "reply", code: 452 },
      ],
      ["a@x.test"],
      always,
    );
    expect(drop.failed?.code).toBeUndefined();
    expect(drop.failed?.response).toMatch(/connection dropped at RCPT/);
  });

  it("a slow server only delays (the longest delay of the rules that apply)", () => {
    const out = decideChaos(
      [
        { at: "rcpt", action: "slow", delaySeconds: 2 },
        { at: "data", action: "slow", delaySeconds: 5 },
      ],
      ["a@x.test"],
      always,
    );
    expect(out).toEqual({ refused: new Map(), delaySeconds: 5 });
  });

  it("draws each rule's share per attempt: a draw at or above the share leaves the attempt alone", () => {
    const rule = { at: "data" as const, action: "reply" as const, code: 451, share: 0.25 };
    const rules = [rule];
    expect(decideChaos(rules, ["a@x.test"], () => 0.2).failed).toBeDefined();
    expect(decideChaos(rules, ["a@x.test"], () => 0.25).failed).toBeUndefined();
    expect(decideChaos(rules, ["a@x.test"], never).failed).toBeUndefined();
    // A rule whose recipient is not in the transaction draws nothing and does nothing.
    expect(decideChaos([{ recipient: "b@x.test", ...rule }], ["a@x.test"], always).failed).toBeUndefined();
  });
});

describe("checkChaosRules", () => {
  it("asks a reply for its code and a slow server for its delay, and neither of the others", () => {
    expect(() => checkChaosRules([{ at: "rcpt", action: "reply" }])).toThrow(/rules\[0\]\.code/);
    expect(() => checkChaosRules([{ at: "rcpt", action: "drop", code: 451 }])).toThrow(/rules\[0\]\.code/);
    expect(() => checkChaosRules([{ at: "data", action: "slow" }])).toThrow(/rules\[0\]\.delaySeconds/);
    expect(() => checkChaosRules([{ at: "data", action: "reply", code: 451, delaySeconds: 3 }])).toThrow(
      /delaySeconds/,
    );
    expect(checkChaosRules([{ at: "data", action: "slow", delaySeconds: 3 }])).toHaveLength(1);
  });
});
