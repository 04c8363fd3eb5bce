import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leftovers } from "./support/leftovers.ts";
import { awaitDeliveries, eventually, type Scenario, startLoad, startScenario } from "./support/scenario.ts";
import { StallProxy } from "./support/stall-proxy.ts";

let world: Scenario;
let proxy: StallProxy;

beforeAll(async () => {
  world = await startScenario("smtp-stall");
  proxy = new StallProxy(world.sink.port);
  await proxy.start();
});
afterAll(async () => {
  await world?.close();
  await proxy?.close();
});

describe("the SMTP peer stalls mid-conversation under load", () => {
  it("holds the mail while it hangs and delivers all of it once it answers again", async () => {
    const api = await world.api();
    const worker = await world.worker("worker-a", { MAILROOM_SMTP_URL: proxy.url });
    const load = startLoad(api.apiUrl, world.ca, world.key);
    await eventually(async () => world.sink.messages.length >= 50, 30_000);

    proxy.stall();
    await sleep(1_000);
    const during = world.sink.messages.length;
    await sleep(7_000);
    // Nothing gets through a hung peer; the worker itself is fine (a peer's trouble is not the worker's).
    expect(world.sink.messages.length).toBe(during);
    expect(await worker.ready()).toBe(true);
    proxy.resume();
    const resumedAt = Date.now();
    await sleep(3_000);
    await load.stop();

    const figures = await awaitDeliveries(
      "smtp peer stalled 8 s",
      world.sink,
      load.accepted,
      resumedAt,
      60_000,
    );
    expect(figures.missing).toEqual([]);
    expect(await leftovers(world.probe)).toEqual({ lockedJobs: 0, unsettled: 0 });
  });
});
