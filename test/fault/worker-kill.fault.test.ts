import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftovers } from "./support/leftovers.ts";
import {
  awaitDeliveries,
  eventually,
  reportUnrecordedWindow,
  type Scenario,
  startLoad,
  startScenario,
} from "./support/scenario.ts";

let world: Scenario;

beforeAll(async () => {
  world = await startScenario("worker-kill");
});
afterAll(async () => {
  await world?.close();
});

describe("a worker killed (-9) under load", () => {
  it("loses nothing: the other worker takes over its jobs, the restarted one works again", async () => {
    const api = await world.api();
    const [victim, survivor] = [await world.worker("worker-a"), await world.worker("worker-b")];
    const load = startLoad(api.apiUrl, world.ca, world.key);
    await eventually(async () => world.sink.messages.length >= 50, 30_000);

    victim?.kill9();
    const killedAt = Date.now();
    expect(await victim?.ready()).toBe(false);
    // Kubernetes starts the pod again after a while; meanwhile the survivor must take over the dead one's jobs.
    await sleep(4_000);
    await victim?.start();
    await sleep(3_000);
    await load.stop();

    const figures = await awaitDeliveries("worker kill -9", world.sink, load.accepted, killedAt, 45_000);
    await reportUnrecordedWindow(
      "worker kill -9",
      [victim, survivor].filter((w) => w !== undefined),
    );
    expect(figures.missing).toEqual([]);
    expect(await survivor?.ready()).toBe(true);
    expect(await victim?.ready()).toBe(true);
    expect(await leftovers(world.probe)).toEqual({ lockedJobs: 0, unsettled: 0 });
  });
});
