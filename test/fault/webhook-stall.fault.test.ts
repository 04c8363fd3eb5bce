import { setTimeout as sleep } from "node:timers/promises";
import { createEndpoint, createSsrfGuard } from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { leftovers } from "./support/leftovers.ts";
import { awaitDeliveries, eventually, type Scenario, startLoad, startScenario } from "./support/scenario.ts";

const ENDPOINTS = 20;
let world: Scenario;
let receiver: WebhookReceiver;

beforeAll(async () => {
  world = await startScenario("webhook-stall");
  receiver = await startWebhookReceiver();
  const secrets: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const { secret } = await createEndpoint(
      world.probe,
      { account: "default", url: `${receiver.origin}/hook/${i}`, events: [] },
      { ssrf: createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] }) },
    );
    secrets.push(secret);
  }
  receiver.setSecrets(...secrets);
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

describe(`${ENDPOINTS} webhook endpoints stall under a steady send load`, () => {
  it("never delays mail: every email is delivered while the receivers hang; webhooks resume after", async () => {
    receiver.respond("hang");
    const api = await world.api();
    const worker = await world.worker("worker-a", {
      MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
      MAILROOM_WEBHOOK_TIMEOUT_MS: "10000",
      MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS: "0,1000,2000,4000,8000",
    });
    const load = startLoad(api.apiUrl, world.ca, world.key);
    await sleep(15_000);
    await load.stop();
    const stoppedAt = Date.now();
    // Every email accepted while all receivers hang reaches the SMTP sink, the receivers still hanging.
    const figures = await awaitDeliveries(
      `${ENDPOINTS} webhook receivers stalled`,
      world.sink,
      load.accepted,
      stoppedAt,
      20_000,
    );
    expect(figures.missing).toEqual([]);
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(await worker.ready()).toBe(true);

    receiver.respond({ status: 200 });
    const before = receiver.received.length;
    expect(
      await eventually(
        async () =>
          receiver.received.filter((r, i) => i >= before && r.verifiedWith.length > 0).length >= ENDPOINTS,
        60_000,
      ),
    ).toBe(true);
    expect((await leftovers(world.probe)).unsettled).toBe(0);
  });
});
