import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import type { RecipientResult } from "../types.ts";
import { createShaper } from "./index.ts";

// The shaper's line of waiting deliveries, driven by sends the test settles by hand and by its own clock.
let clock = 0;
const shaping = loadConfig({}).shaping;
const group = { ...shaping.defaults, name: "big", mxSuffixes: ["big.test"], concurrency: 1 };
const shaper = (maxWaitSeconds = 30) =>
  createShaper({ ...shaping, providers: [group], maxWaitSeconds, now: () => clock });

/** A send that ends when the test says, with one reply for its one recipient. */
function pendingSend() {
  let end: (reply: Omit<RecipientResult, "recipient">) => void = () => {};
  let started = false;
  const send = () => {
    started = true;
    return new Promise<{ results: RecipientResult[] }>((resolve) => {
      end = (reply) => resolve({ results: [{ recipient: "r@x.test", ...reply }] });
    });
  };
  return { send, end: (reply: Omit<RecipientResult, "recipient">) => end(reply), started: () => started };
}

const untried = (results: RecipientResult[]) => ({ results });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the shaper's line", () => {
  it("lets the next delivery in line go when a transaction ends", async () => {
    const s = shaper();
    const first = pendingSend();
    const second = pendingSend();
    const one = s.run("mx.big.test", ["a@x.test"], first.send, untried);
    const two = s.run("mx2.big.test", ["b@x.test"], second.send, untried);
    await tick();
    expect([first.started(), second.started()]).toEqual([true, false]);
    first.end({ status: "accepted", code: 250, response: "250 ok" });
    expect((await one).results[0]?.status).toBe("accepted");
    await tick();
    expect(second.started()).toBe(true);
    second.end({ status: "accepted", code: 250, response: "250 ok" });
    expect((await two).results[0]?.status).toBe("accepted");
  });

  it("defers everyone in line at once when the transaction ahead is answered 421, none of them tried", async () => {
    const s = shaper();
    const first = pendingSend();
    const later = [pendingSend(), pendingSend()];
    const one = s.run("mx.big.test", ["a@x.test"], first.send, untried);
    const rest = later.map((p, i) => s.run("mx.big.test", [`l${i}@x.test`], p.send, untried));
    await tick();
    first.end({ status: "temporary", code: 421, response: "421 4.7.0 too fast" });
    expect((await one).results[0]?.response).toBe("421 4.7.0 too fast; destination big backed off for 30 s");
    for (const result of await Promise.all(rest)) {
      expect(result.results[0]).toMatchObject({ status: "temporary" });
      expect(result.results[0]?.response).toMatch(
        /^not attempted: destination big backed off until .* after "421 4\.7\.0 too fast/,
      );
    }
    expect(later.map((p) => p.started())).toEqual([false, false]);
  });

  it("defers at once a delivery that could not expect its slot within the longest wait", async () => {
    clock = 1_000_000;
    const s = shaper(10);
    // One transaction that held its slot 20 s (by the clock): the next in line would wait about as long.
    const slow = pendingSend();
    const one = s.run("mx.big.test", ["a@x.test"], slow.send, untried);
    await tick();
    clock += 20_000;
    slow.end({ status: "accepted", code: 250, response: "250 ok" });
    await one;
    const held = pendingSend();
    const two = s.run("mx.big.test", ["b@x.test"], held.send, untried);
    const waiting = pendingSend();
    const three = await s.run("mx.big.test", ["c@x.test"], waiting.send, untried);
    expect(three.results[0]?.response).toBe("not attempted: destination big busy (no slot within 10 s)");
    expect(waiting.started()).toBe(false);
    held.end({ status: "accepted", code: 250, response: "250 ok" });
    await two;
  });

  it("gives back a start it was waiting for by the rate when the destination is paused meanwhile", async () => {
    clock = 2_000_000;
    let wake: () => void = () => {};
    const slept: number[] = [];
    const s = createShaper({
      ...shaping,
      providers: [{ ...group, concurrency: 2, ratePerMinute: 60 }],
      now: () => clock,
      sleep: (ms) => {
        slept.push(ms);
        return new Promise((resolve) => {
          wake = resolve;
        });
      },
    });
    const first = pendingSend();
    const one = s.run("mx.big.test", ["a@x.test"], first.send, untried);
    // Due a second after the first by the rate; the 421 to the first comes while it waits.
    const second = pendingSend();
    const two = s.run("mx.big.test", ["b@x.test"], second.send, untried);
    await tick();
    expect(slept).toEqual([1_000]);
    first.end({ status: "temporary", code: 421, response: "421 4.7.0 too fast" });
    await one;
    clock += 1_000;
    wake();
    expect((await two).results[0]?.response).toMatch(/^not attempted: destination big backed off until /);
    expect(second.started()).toBe(false);
  });
});
