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

  it("gives an endpoint at most its share of attempts; the rest wait for them, not for a later job", async () => {
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
    g.releaseAll();
    await tick();
    expect(g.drained).toEqual(["hole/email:1", "hole/email:2", "hole/email:3", "hole/email:4"]);
    g.releaseAll();
    await tick();
    g.releaseAll();
    expect(await run).toBe("drained");
    expect(g.drained).toHaveLength(5);
    expect(over).toEqual([]);
  });

  it("lets a job end while its streams wait for another job's attempts, and says so (handed over)", async () => {
    const share = createWebhookShare({ perAccountJobs: 2, perEndpointAttempts: 1 });
    const g = gate();
    const over: string[] = [];
    const first = share.run("a", [stream("e1", 1)], 4, g.drain, (s) => over.push(s.stream));
    await tick();
    // e1 is full: the second job's only stream waits in the queue, and its lane ends at once.
    expect(await share.run("a", [stream("e1", 2)], 4, g.drain, (s) => over.push(s.stream))).toBe(
      "handed_over",
    );
    expect(g.drained).toEqual(["e1/email:1"]);
    g.releaseAll();
    await tick();
    expect(g.drained).toEqual(["e1/email:1", "e1/email:2"]);
    g.releaseAll();
    expect(await first).toBe("drained");
    expect(over).toEqual([]);
  });

  it("gives back what is still queued when the account's last job ends after a failed drain", async () => {
    const share = createWebhookShare({ perAccountJobs: 2, perEndpointAttempts: 1 });
    const over: string[] = [];
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error("boom");
    };
    await expect(
      share.run("a", [stream("e1", 1), stream("e1", 2)], 1, failing, (s) => over.push(s.stream)),
    ).rejects.toThrow("boom");
    expect(calls).toBe(1);
    expect(over).toEqual(["email:2"]);
  });
});
