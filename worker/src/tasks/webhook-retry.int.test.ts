import { withTransaction } from "@mailroom/core/db";
import {
  emitEvents,
  getDelivery,
  getEndpoint,
  listDeliveries,
  type RetryPolicy,
  replayDelivery,
} from "@mailroom/core/webhooks";
import { describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../test/support/db.ts";
import { sleep, until } from "../../../test/support/wait.ts";
import type { WebhookReceiver } from "../../../test/support/webhook-receiver.ts";
import {
  createReceiverEndpoint,
  FAST_RETRIES,
  useWebhookWorker,
  type WebhookWorkerSetup,
} from "../../../test/support/webhook-runner.ts";
import type { WebhookTaskDeps } from "./webhook-deliver.ts";

// The production schedule (0, 5 s, 5 min, …) with milliseconds for its steps.
const FAST = FAST_RETRIES;
// Arrival gaps are measured at the receiver; allow for timer granularity only.
const SLACK_MS = 5;

let db: TestDatabase;
let receiver: WebhookReceiver;
let startWorker: WebhookWorkerSetup["start"];
useWebhookWorker((setup) => {
  ({ db, start: startWorker } = setup);
});

/** A real graphile-worker runner with the webhook tasks, a fresh receiver, and one endpoint on it. */
async function start(options: Partial<WebhookTaskDeps> = {}) {
  receiver = await startWorker(options);
  const { account, endpoint } = await createReceiverEndpoint(db, receiver);
  const emit = (emailId: string, type = "email.queued") =>
    withTransaction(db.pool, (client) => emitEvents(client, [{ account, type, data: { emailId } }]));
  const deliveries = async () => {
    const { data } = await listDeliveries(db.pool, account, endpoint.id);
    return Promise.all(data.map((d) => getDelivery(db.pool, account, endpoint.id, d.id)));
  };
  return { account, endpoint, emit, deliveries };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

describe("webhook retries (shortened clock)", () => {
  it("follows the schedule, then gives up without disabling the endpoint", async () => {
    const { account, endpoint, emit, deliveries } = await start();
    receiver.respond({ status: 500, body: "x".repeat(5000) });
    await emit("e1");
    const requests = await receiver.waitFor(4);
    gaps(requests.map((r) => r.at)).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual((FAST.scheduleMs[i + 1] as number) - SLACK_MS);
    });
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const [only] = await until(deliveries, ([d]) => d?.delivery.state === "failed");
    expect(only?.delivery).toMatchObject({
      state: "failed",
      attempts: 4,
      lastStatusCode: 500,
      nextAttemptAt: null,
    });
    expect(only?.attempts.map((a) => [a.attempt, a.statusCode, a.nextAttemptAt === null])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 500, false],
      [4, 500, true],
    ]);
    // An endpoint that never answered 2xx gets no excerpt of its answers back (ADR 0027).
    expect(only?.attempts[0]?.responseExcerpt).toBeNull();
    await sleep(600);
    expect(receiver.received).toHaveLength(4);
    expect((await getEndpoint(db.pool, account, endpoint.id)).enabled).toBe(true);
  });

  it("disables the endpoint on 410 and fails what was pending for it", async () => {
    const { account, endpoint, emit, deliveries } = await start();
    receiver.respond({ status: 410 });
    // Both events in one transaction, so both deliveries exist before the first answer disables the endpoint
    // (an event fanned out after that is never given a delivery: see the end of this test).
    await withTransaction(db.pool, (client) =>
      emitEvents(client, [
        { account, type: "email.queued", data: { emailId: "e1" } },
        { account, type: "email.queued", data: { emailId: "e2" } },
      ]),
    );
    const disabled = await until(
      () => getEndpoint(db.pool, account, endpoint.id),
      (e) => !e.enabled,
    );
    expect(disabled).toMatchObject({ enabled: false, disabledReason: "the receiver answered 410 Gone" });
    const all = await until(
      deliveries,
      (ds) => ds.length === 2 && ds.every((d) => d.delivery.state === "failed"),
    );
    expect(all.map((d) => d.delivery.state)).toEqual(["failed", "failed"]);
    const sent = receiver.received.length;
    expect(sent).toBeGreaterThanOrEqual(1);
    await emit("e3");
    await sleep(400);
    expect(receiver.received).toHaveLength(sent);
    expect(await deliveries()).toHaveLength(2);
  });

  it("waits as long as a 429's Retry-After asks", async () => {
    const { emit, deliveries } = await start();
    receiver.respond((_, index) => (index === 0 ? { status: 429, retryAfter: "1" } : { status: 200 }));
    await emit("e1");
    const [first, second] = await receiver.waitFor(2, 5_000);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000 - SLACK_MS);
    const [only] = await until(deliveries, ([d]) => d?.delivery.state === "succeeded");
    expect(only?.attempts.map((a) => a.statusCode)).toEqual([429, 200]);
  });

  it("disables an endpoint that keeps failing for the configured span", async () => {
    const policy: RetryPolicy = {
      scheduleMs: [0, 100, 100, 100, 100, 100, 100, 100],
      disableAfterMs: 350,
      maxRetryAfterMs: 0,
    };
    const { account, endpoint, emit, deliveries } = await start({ retryPolicy: policy });
    receiver.respond({ status: 503 });
    await emit("e1");
    const disabled = await until(
      () => getEndpoint(db.pool, account, endpoint.id),
      (e) => !e.enabled,
    );
    expect(disabled.disabledReason).toBe("every delivery failed for 350 ms");
    // Attempts every ~100 ms fail until one finds the span exceeded: it is the last, made 350 ms or more after
    // the first (how many fit in between depends on the machine's speed), and well before the schedule ends.
    const [only] = await deliveries();
    const times = (only?.attempts ?? []).map((a) => a.at.getTime());
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times.length).toBeLessThan(policy.scheduleMs.length);
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(350);
    expect((times.at(-2) ?? 0) - (times[0] ?? 0)).toBeLessThan(350);
    expect(receiver.received.length).toBe(times.length);
  });

  it("times out a receiver that never answers, then retries", async () => {
    const { emit, deliveries } = await start({ timeoutMs: 300 });
    receiver.respond((_, index) => (index === 0 ? "hang" : { status: 202 }));
    await emit("e1");
    const [only] = await until(deliveries, ([d]) => d?.delivery.state === "succeeded");
    expect(only?.attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [null, "timed out after 300 ms"],
      [202, null],
    ]);
    expect(only?.attempts[0]?.durationMs).toBeGreaterThanOrEqual(300 - SLACK_MS);
  });

  it("replays a delivered event with the same webhook-id", async () => {
    const { account, endpoint, emit, deliveries } = await start();
    await emit("e1", "email.delivered");
    const [done] = await until(deliveries, ([d]) => d?.delivery.state === "succeeded");
    const replayed = await replayDelivery(db.pool, account, endpoint.id, done?.delivery.id ?? "");
    expect(replayed.state).toBe("pending");
    const [first, second] = await receiver.waitFor(2);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(second?.verifiedWith).toHaveLength(1);
    const [again] = await until(deliveries, ([d]) => d?.delivery.state === "succeeded");
    expect(again?.delivery.attempts).toBe(2);
  });
});
