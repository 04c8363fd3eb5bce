import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftovers } from "./support/leftovers.ts";
import { awaitDeliveries, eventually, type Scenario, startLoad, startScenario } from "./support/scenario.ts";

let world: Scenario;

beforeAll(async () => {
  world = await startScenario("api-kill");
});
afterAll(async () => {
  await world?.close();
});

describe("the API killed (-9) under load", () => {
  it("delivers every email it answered 2xx for, including those committed just before it died", async () => {
    const api = await world.api();
    await world.worker("worker-a");
    const load = startLoad(api.apiUrl, world.ca, world.key);
    await eventually(async () => world.sink.messages.length >= 50, 30_000);

    api.kill9();
    expect(await api.ready()).toBe(false);
    await sleep(2_000);
    await api.start();
    const restartedAt = Date.now();
    expect(await eventually(() => api.ready(), 20_000)).toBe(true);
    await sleep(3_000);
    await load.stop();

    const figures = await awaitDeliveries("api kill -9", world.sink, load.accepted, restartedAt, 45_000);
    expect(figures.missing).toEqual([]);
    expect(load.refused()).toBeGreaterThan(0);
    expect(await leftovers(world.probe)).toEqual({ lockedJobs: 0, unsettled: 0 });
  });
});
