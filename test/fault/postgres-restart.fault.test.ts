import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftovers } from "./support/leftovers.ts";
import { awaitDeliveries, eventually, type Scenario, startLoad, startScenario } from "./support/scenario.ts";

let world: Scenario;

beforeAll(async () => {
  world = await startScenario("postgres");
});
afterAll(async () => {
  await world?.close();
});

describe("Postgres killed (-9) and restarted under load, two workers", () => {
  it("both workers go on by themselves, release what they held, and say not-ready while they cannot work", async () => {
    const api = await world.api();
    const workers = [await world.worker("worker-a"), await world.worker("worker-b")];
    const load = startLoad(api.apiUrl, world.ca, world.key);
    await eventually(async () => world.sink.messages.length >= 50, 30_000);

    world.cluster.kill();
    const notReady = new Set<string>();
    const outageEnds = Date.now() + 5_000;
    while (Date.now() < outageEnds) {
      for (const w of workers) if (!(await w.ready())) notReady.add(w.name);
      await sleep(250);
    }
    await world.cluster.restart();
    const restartedAt = Date.now();
    const deliveredBefore = await Promise.all(
      workers.map((w) => w.metric("mailroom_delivery_outcomes_total")),
    );
    await sleep(5_000);
    await load.stop();

    const figures = await awaitDeliveries(
      "postgres kill -9 + restart",
      world.sink,
      load.accepted,
      restartedAt,
      45_000,
    );
    expect(figures.missing).toEqual([]);
    expect([...notReady].sort()).toEqual(["worker-a", "worker-b"]);
    for (const w of workers) expect(await w.ready(), `${w.name} ready again`).toBe(true);
    // Went on by itself: no worker process exited (graphile-worker's unhandled local-queue rejection did).
    for (const w of workers) expect(w.restarts, `${w.name} exited`).toBe(0);
    // Not stuck: each worker delivered again after the outage.
    const deliveredAfter = await Promise.all(
      workers.map((w) => w.metric("mailroom_delivery_outcomes_total")),
    );
    for (const [i, w] of workers.entries()) {
      expect(deliveredAfter[i], `${w.name} delivered after the outage`).toBeGreaterThan(
        deliveredBefore[i] ?? 0,
      );
    }
    expect(await leftovers(world.probe)).toEqual({ lockedJobs: 0, unsettled: 0 });
  });
});
