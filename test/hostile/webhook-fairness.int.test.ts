import { randomUUID } from "node:crypto";
import { withTransaction } from "@mailroom/core/db";
import { emitEvents, listDeliveries } from "@mailroom/core/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createReceiverEndpoint, startWebhookRunner } from "../support/webhook-runner.ts";

/**
 * Issue 26, item 2: one tenant's receiver that accepts connections and never answers must not starve another
 * tenant's healthy receiver. Real HTTP servers, a real graphile-worker runner with 4 background slots.
 */

let db: TestDatabase;
let blackHole: WebhookReceiver | undefined;
let healthy: WebhookReceiver | undefined;
// Receivers close first: a held request then fails, and the runner can stop without waiting it out.
let stopRunner: (() => Promise<void>) | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await blackHole?.close();
  await healthy?.close();
  [blackHole, healthy] = [undefined, undefined];
  await stopRunner?.();
  stopRunner = undefined;
  await db.pool.query("delete from graphile_worker._private_jobs");
});
afterAll(async () => {
  await db?.drop();
});

/** `count` events of the account, each about its own email (its own stream), in batches of `batch`. */
async function emit(account: string, count: number, batch = 10) {
  for (let i = 0; i < count; i += batch) {
    const events = Array.from({ length: Math.min(batch, count - i) }, () => ({
      account,
      type: "email.delivered" as const,
      data: { emailId: randomUUID(), to: ["a@b.c"] },
    }));
    await withTransaction(db.pool, (client) => emitEvents(client, events));
  }
}

const PER_ENDPOINT = 4;

describe("webhook fairness between accounts", () => {
  it("a black-hole endpoint of one account does not slow another account's healthy endpoint", async () => {
    const hole = await startWebhookReceiver();
    blackHole = hole;
    hole.respond("hang");
    const good = await startWebhookReceiver();
    healthy = good;
    const a = await createReceiverEndpoint(db, hole);
    const b = await createReceiverEndpoint(db, good);
    // Timeouts far longer than the test: B must keep flowing because of the bounds, not because A times out.
    stopRunner = await startWebhookRunner({
      pool: db.pool,
      allowedCidrs: ["127.0.0.0/8"],
      timeoutMs: 120_000,
      firstByteTimeoutMs: 120_000,
      backgroundSlots: 4,
      fairness: { perEndpointAttempts: PER_ENDPOINT },
      deferMs: 1_000,
    });

    // Baseline, same run: B alone.
    const N = 60;
    let started = performance.now();
    await emit(b.account, N);
    await good.waitFor(N, 60_000);
    const baselineMs = performance.now() - started;

    // A's backlog: 200 events in 20 fan-outs, so many jobs compete for the 4 slots.
    await emit(a.account, 200);
    await until(
      async () => hole.received.length,
      (n) => n >= PER_ENDPOINT,
      30_000,
    );
    started = performance.now();
    await emit(b.account, N);
    await good.waitFor(2 * N, 60_000);
    const besideMs = performance.now() - started;

    // All of B's deliveries arrived while A's requests were all still held open by the black hole: none of A's
    // attempts has ended, and A never had more than its share in flight.
    expect(good.received.filter((r) => r.verifiedWith.length === 1)).toHaveLength(2 * N);
    expect(hole.received.length).toBeLessThanOrEqual(PER_ENDPOINT);
    const { rows } = await db.pool.query<{ count: string }>(
      "select count(*) from webhook_attempts where endpoint_id = $1",
      [a.endpoint.id],
    );
    expect(Number(rows[0]?.count)).toBe(0);
    const pendingA = (await listDeliveries(db.pool, a.account, a.endpoint.id, { limit: 100 })).data;
    expect(pendingA.length).toBeGreaterThan(50);
    process.stdout.write(
      `webhook fairness: B alone ${N} in ${Math.round(baselineMs)} ms; beside a black hole holding ` +
        `${hole.received.length} requests and ${pendingA.length}+ pending, ${N} in ${Math.round(besideMs)} ms\n`,
    );
  }, 180_000);

  it("a receiver that takes the request and never answers fails the attempt at the first-byte timeout", async () => {
    const hole = await startWebhookReceiver();
    blackHole = hole;
    hole.respond("hang");
    const c = await createReceiverEndpoint(db, hole);
    stopRunner = await startWebhookRunner({
      pool: db.pool,
      allowedCidrs: ["127.0.0.0/8"],
      timeoutMs: 120_000,
      firstByteTimeoutMs: 300,
    });
    await emit(c.account, 1);
    const attempts = await until(
      async () =>
        (
          await db.pool.query<{ error: string | null }>(
            "select error from webhook_attempts where endpoint_id = $1",
            [c.endpoint.id],
          )
        ).rows,
      (rows) => rows.length > 0,
      30_000,
    );
    expect(attempts[0]?.error).toBe("no answer within 300 ms");
  });
});
