import { describe, expect, it } from "vitest";
import { graphileWorkerOptions } from "./graphile-settings.ts";

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
});
