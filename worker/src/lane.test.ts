import { describe, expect, it } from "vitest";
import { graphileWorkerOptions } from "./lane.ts";

// The local queue's size is how many prefetched jobs a newly added one waits behind, whatever its priority
// (ADR 0053): it must follow the setting, and stay the concurrency when unset (ADR 0008's batched fetch).
describe("graphileWorkerOptions", () => {
  it("fetches as many jobs ahead as there are slots by default", () => {
    expect(graphileWorkerOptions({ concurrency: 20 }).preset?.worker?.localQueue?.size).toBe(20);
  });

  it("fetches the given number of jobs ahead when a local queue size is set", () => {
    const options = graphileWorkerOptions({ concurrency: 20, localQueueSize: 4 });
    expect(options.concurrency).toBe(20);
    expect(options.preset?.worker?.localQueue?.size).toBe(4);
  });

  // graphile-worker 0.17's local queue fetches without the flags and its flagged workers never take from it:
  // with both, prefetched jobs sat locked and unrun (ADR 0064).
  it("has no local queue when it forbids flags, whatever size is asked for", () => {
    const options = graphileWorkerOptions({
      concurrency: 2,
      localQueueSize: 2,
      forbiddenFlags: ["over_fair_share"],
    });
    expect(options.forbiddenFlags).toEqual(["over_fair_share"]);
    expect(options.preset?.worker?.localQueue?.size).toBe(-1);
    expect(graphileWorkerOptions({ concurrency: 2, forbiddenFlags: [] }).forbiddenFlags).toBeUndefined();
  });
});
