import type { Pool } from "@mailroom/core/db";
import { withTransaction } from "@mailroom/core/db";
import { emitEvents, getDelivery, listDeliveries } from "@mailroom/core/webhooks";
import { describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../test/support/db.ts";
import { until } from "../../../test/support/wait.ts";
import type { WebhookReceiver } from "../../../test/support/webhook-receiver.ts";
import {
  createReceiverEndpoint,
  useWebhookWorker,
  type WebhookWorkerSetup,
} from "../../../test/support/webhook-runner.ts";

// Concurrent deliveries share claim and record statements; these tests check that sharing changes nothing a
// receiver or the deliveries list can see, and that it really happens (else they would prove nothing).

let db: TestDatabase;
let receiver: WebhookReceiver;
let startWorker: WebhookWorkerSetup["start"];
useWebhookWorker((setup) => {
  ({ db, start: startWorker } = setup);
});

/** The pool, reporting how many items each named (batched) statement carried. */
function countingBatches(pool: Pool) {
  const sizes: Record<string, number[]> = {};
  const query = (config: { name?: string; values?: unknown[] }, ...rest: unknown[]) => {
    const items = config.values?.[0];
    if (config.name && Array.isArray(items))
      sizes[config.name] = [...(sizes[config.name] ?? []), items.length];
    return (pool.query as (...args: unknown[]) => unknown)(config, ...rest);
  };
  const counted = new Proxy(pool, {
    get: (target, key) => (key === "query" ? query : Reflect.get(target, key, target)),
  });
  return { pool: counted, largest: (name: string) => Math.max(0, ...(sizes[name] ?? [])) };
}

/** A worker with the production graphile-worker options, a fresh receiver and one endpoint on it. */
async function start() {
  const batches = countingBatches(db.pool);
  receiver = await startWorker({ pool: batches.pool });
  const { account, endpoint } = await createReceiverEndpoint(db, receiver);
  // One transaction per call, as the email pipeline writes a group of transitions.
  const emit = (type: string, emailIds: string[]) =>
    withTransaction(db.pool, (client) =>
      emitEvents(
        client,
        emailIds.map((emailId) => ({ account, type, data: { emailId } })),
      ),
    );
  const deliveries = async () => {
    const { data } = await listDeliveries(db.pool, account, endpoint.id, { limit: 100 });
    return Promise.all(data.map((d) => getDelivery(db.pool, account, endpoint.id, d.id)));
  };
  return { batches, emit, deliveries };
}

/** Every delivery of the endpoint with its attempts, once all of them succeeded (or after 5 s). */
const allSucceeded = (deliveries: () => ReturnType<Awaited<ReturnType<typeof start>>["deliveries"]>) =>
  until(deliveries, (all) => all.every((d) => d.delivery.state === "succeeded"));

const emails = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);
const emailOf = (r: { payload?: { data: Record<string, unknown> } | undefined }) =>
  String(r.payload?.data.emailId);
const succeeded = (answer: unknown) => {
  const status = (answer as { status?: number }).status ?? 0;
  return status >= 200 && status < 300;
};

describe("webhook deliveries sharing statements", () => {
  it("keeps each email's events in order while many streams share claims and records", async () => {
    const { batches, emit, deliveries } = await start();
    const ids = emails(24);
    const types = ["email.queued", "email.deferred", "email.delivered"];
    // Every fourth email's first and second events each fail once: its later events must wait for them.
    const failedOnce = new Set<string>();
    receiver.respond((request) => {
      const key = `${emailOf(request)} ${request.payload?.type}`;
      const flaky =
        Number(emailOf(request).slice(1)) % 4 === 0 && request.payload?.type !== "email.delivered";
      if (!flaky || failedOnce.has(key)) return { status: 204 };
      failedOnce.add(key);
      return { status: 503 };
    });
    for (const type of types) await emit(type, ids);
    const requests = await receiver.waitFor(ids.length * types.length + 12, 15_000);
    for (const id of ids) {
      const mine = requests.filter((r) => emailOf(r) === id);
      // In order, and nothing sent before the previous event was accepted.
      const accepted = mine.filter((r) => succeeded(r.answer)).map((r) => r.payload?.type);
      expect(accepted, id).toEqual(types);
      mine.forEach((r, i) => {
        const before = mine.slice(0, i);
        const previous = types[types.indexOf(r.payload?.type ?? "") - 1];
        if (previous)
          expect(before.some((b) => b.payload?.type === previous && succeeded(b.answer))).toBe(true);
      });
    }
    const all = await allSucceeded(deliveries);
    expect(all.map((d) => d.delivery.state)).toEqual(Array(ids.length * types.length).fill("succeeded"));
    expect(all.filter((d) => d.attempts.length === 2)).toHaveLength(12);
    expect(batches.largest("mailroom_webhook_claim_heads")).toBeGreaterThan(1);
    expect(batches.largest("mailroom_webhook_record_successes")).toBeGreaterThan(1);
  });

  it("retries a failed POST alone: the successes it was sent with are recorded once", async () => {
    const { emit, deliveries } = await start();
    receiver.respond((request, index) =>
      emailOf(request) === "e3" && index < 12 ? { status: 500, body: "try later" } : { status: 204 },
    );
    await emit("email.queued", emails(12));
    await receiver.waitFor(13);
    const all = await allSucceeded(deliveries);
    expect(all.map((d) => d.delivery.state)).toEqual(Array(12).fill("succeeded"));
    const attempts = all.map((d) => d.attempts.map((a) => a.statusCode));
    expect(attempts.filter((a) => a.length === 1 && a[0] === 204)).toHaveLength(11);
    expect(attempts.filter((a) => a.length === 2)).toEqual([[500, 204]]);
    expect(receiver.received).toHaveLength(13);
    // Whether these twelve successes shared a statement depends on timing (a loaded machine may record them
    // one by one); the first test, with 72 deliveries, is the one that checks sharing happens.
  });

  it("records an answer carrying a NUL byte without failing the statement it shares", async () => {
    const { emit, deliveries } = await start();
    receiver.respond((request) =>
      emailOf(request) === "e1" ? { status: 200, body: "ok\u0000!" } : { status: 204 },
    );
    await emit("email.queued", emails(6));
    await receiver.waitFor(6);
    const all = await allSucceeded(deliveries);
    expect(all.map((d) => d.delivery.state)).toEqual(Array(6).fill("succeeded"));
    expect(all.flatMap((d) => d.attempts.map((a) => a.responseExcerpt)).sort()).toEqual([
      "",
      "",
      "",
      "",
      "",
      "ok!",
    ]);
    expect(receiver.received).toHaveLength(6);
  });
});
