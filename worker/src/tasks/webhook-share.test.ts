import { describe, expect, it } from "vitest";
import { createWebhookShare } from "./webhook-share.ts";

const stream = (endpointId: string, n: number) => ({ endpointId, stream: `email:${n}` });

/** A drain that waits until released, recording what it was given. */
function gate() {
  const drained: string[] = [];
  const waiting: (() => void)[] = [];
  return {
    drained,
    drain: (s: { endpointId: string; stream: string }) =>
      new Promise<void>((resolve) => {
        drained.push(`${s.endpointId}/${s.stream}`);
        waiting.push(resolve);
      }),
    releaseAll: () => {
      for (const r of waiting.splice(0)) r();
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("webhook share", () => {
  it("hands a job over its account's share to the running job, which drains it; other accounts run", async () => {
    const share = createWebhookShare({ perAccountJobs: 1, perEndpointAttempts: 8 });
    const g = gate();
    const over: string[] = [];
    const first = share.run("a", [stream("e1", 1)], 4, g.drain, (s) => over.push(s.stream));
    await tick();
    expect(await share.run("a", [stream("e1", 2), stream("e2", 3)], 4, g.drain, () => {})).toBe(
      "handed_over",
    );
    const other = share.run("b", [stream("e9", 4)], 4, g.drain, () => {});
    await tick();
    expect(g.drained).toEqual(["e1/email:1", "e9/email:4"]);
    g.releaseAll();
    await tick();
    g.releaseAll();
    await tick();
    g.releaseAll();
    expect(await first).toBe("drained");
    expect(await other).toBe("drained");
    expect(g.drained.sort()).toEqual(["e1/email:1", "e1/email:2", "e2/email:3", "e9/email:4"]);
    expect(over).toEqual([]);
  });

  it("gives an endpoint at most its share of attempts; the rest go back for later", async () => {
    const share = createWebhookShare({ perAccountJobs: 2, perEndpointAttempts: 2 });
    const g = gate();
    const over: string[] = [];
    const run = share.run(
      "a",
      [1, 2, 3, 4, 5].map((n) => stream("hole", n)),
      5,
      g.drain,
      (s) => over.push(s.stream),
    );
    await tick();
    expect(g.drained).toEqual(["hole/email:1", "hole/email:2"]);
    expect(over).toEqual(["email:3", "email:4", "email:5"]);
    g.releaseAll();
    expect(await run).toBe("drained");
  });
});
