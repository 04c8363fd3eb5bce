import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { withTransaction } from "../db/pool.ts";
import { getDelivery, getLastAttempt, listDeliveries } from "./deliveries.ts";
import {
  type ClaimedDelivery,
  claimStreamHeads,
  completeAttempt,
  fanOutEvents,
  recordSuccesses,
  type StreamClaim,
} from "./dispatch.ts";
import { createWebhookDispatcher } from "./dispatcher.ts";
import { emitEvents } from "./outbox.ts";
import { DEFAULT_RETRY_POLICY } from "./schedule.ts";
import { createSsrfGuard } from "./ssrf.ts";
import { createEndpoint, disableEndpoint } from "./store.ts";

const LEASE_MS = 60_000;
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** An endpoint of a fresh account, and events for it already fanned out into deliveries. */
async function setup(emailIds: string[][]) {
  const account = `a-${randomBytes(4).toString("hex")}`;
  const ssrf = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] });
  const { endpoint } = await createEndpoint(db.pool, { account, url: "http://127.0.0.1:9/hook" }, { ssrf });
  // One transaction per round: round n holds the n-th event of each listed email.
  const eventIds: string[][] = [];
  for (const round of emailIds) {
    const ids = await withTransaction(db.pool, (client) =>
      emitEvents(
        client,
        round.map((emailId) => ({ account, type: "email.queued", data: { emailId } })),
      ),
    );
    expect(await fanOutEvents(db.pool, ids)).toBe(round.length);
    eventIds.push(ids);
  }
  const stream = (emailId: string) => ({ endpointId: endpoint.id, stream: `email:${emailId}` });
  return { account, endpoint, stream, eventIds };
}

/**
 * The claim's clock, read after a fan-out: a JavaScript date has milliseconds, Postgres's `now()` microseconds,
 * so a plain `new Date()` taken within the fan-out's millisecond reads earlier than the delivery's
 * `next_attempt_at` and the head is (rightly) not yet due.
 */
const claimTime = () => new Date(Date.now() + 1);
const delivery = (claim: StreamClaim | undefined): ClaimedDelivery => {
  if (claim?.kind !== "deliver") throw new Error(`expected a delivery, got ${claim?.kind}`);
  return claim.delivery;
};
const ok = (d: ClaimedDelivery, at = new Date()) => ({
  delivery: d,
  result: { statusCode: 204, durationMs: 3 },
  at,
});

describe("claimStreamHeads", () => {
  it("claims each stream's head in one statement, answering in the order asked", async () => {
    const { stream } = await setup([["a", "b", "c"], ["a"]]);
    const claims = await claimStreamHeads(
      db.pool,
      [stream("c"), stream("a"), stream("z")],
      claimTime(),
      LEASE_MS,
    );
    expect(claims.map((c) => c.kind)).toEqual(["deliver", "deliver", "idle"]);
    expect(delivery(claims[0]).stream).toBe("email:c");
    expect(delivery(claims[1])).toMatchObject({ stream: "email:a", attempts: 0, step: 0 });
    expect(delivery(claims[1]).secrets).toHaveLength(1);
  });

  it("hands a stream asked for twice to its first asker only, and a leased head to nobody", async () => {
    const { stream } = await setup([["a"]]);
    const now = claimTime();
    const [first, second] = await claimStreamHeads(db.pool, [stream("a"), stream("a")], now, LEASE_MS);
    expect([first?.kind, second?.kind]).toEqual(["deliver", "busy"]);
    const [again] = await claimStreamHeads(db.pool, [stream("a")], now, LEASE_MS);
    expect(again?.kind).toBe("busy");
  });

  it("never sends behind a head: the second event waits until the first is recorded", async () => {
    const { stream, eventIds } = await setup([["a"], ["a"]]);
    const [head] = await claimStreamHeads(db.pool, [stream("a")], claimTime(), LEASE_MS);
    expect(delivery(head).eventId).toBe(eventIds[0]?.[0]);
    const [meanwhile] = await claimStreamHeads(db.pool, [stream("a")], claimTime(), LEASE_MS);
    expect(meanwhile?.kind).toBe("busy");
    await recordSuccesses(db.pool, [ok(delivery(head))]);
    const [next] = await claimStreamHeads(db.pool, [stream("a")], claimTime(), LEASE_MS);
    expect(delivery(next).eventId).toBe(eventIds[1]?.[0]);
  });

  it("wakes a stream whose head is leased elsewhere when the lease ends (its holder may have failed)", async () => {
    const { endpoint, stream } = await setup([["a"]]);
    const now = claimTime();
    const [head] = await claimStreamHeads(db.pool, [stream("a")], now, LEASE_MS);
    delivery(head);
    // The holder's job fails here without recording; its retry (or a new event) finds the head busy.
    const [retry] = await claimStreamHeads(db.pool, [stream("a")], new Date(now.getTime() + 2_000), LEASE_MS);
    expect(retry?.kind).toBe("busy");
    const { rows } = await db.pool.query<{ run_at: Date }>(
      `select run_at from graphile_worker.jobs where key = $1`,
      [`webhook-lease:${endpoint.id}:email:a`],
    );
    expect(rows.map((r) => r.run_at.getTime())).toEqual([now.getTime() + LEASE_MS]);
    const [afterLease] = await claimStreamHeads(
      db.pool,
      [stream("a")],
      new Date(now.getTime() + LEASE_MS),
      LEASE_MS,
    );
    expect(afterLease?.kind).toBe("deliver");
  });

  it("holds a head back while an earlier event of its stream waits for its fan-out (fan-outs may commit out of order)", async () => {
    const { account, stream } = await setup([]);
    const emitOne = (type: string) =>
      withTransaction(db.pool, (client) => emitEvents(client, [{ account, type, data: { emailId: "o" } }]));
    const [earlier] = await emitOne("email.queued");
    const [later] = await emitOne("email.delivered");
    // The later event's fan-out commits first.
    expect(await fanOutEvents(db.pool, [String(later)])).toBe(1);
    const [held] = await claimStreamHeads(db.pool, [stream("o")], claimTime(), LEASE_MS);
    expect(held?.kind).toBe("wait");
    expect(await fanOutEvents(db.pool, [String(earlier)])).toBe(1);
    const [first] = await claimStreamHeads(db.pool, [stream("o")], claimTime(), LEASE_MS);
    expect(delivery(first).eventId).toBe(earlier);
  });

  it("answers wait for a head not yet due and schedules its wake-up at that time", async () => {
    const { endpoint, stream } = await setup([["a"]]);
    const later = new Date(Date.now() + 3_600_000);
    await db.pool.query(`update webhook_deliveries set next_attempt_at = $2 where endpoint_id = $1`, [
      endpoint.id,
      later,
    ]);
    const [claim] = await claimStreamHeads(db.pool, [stream("a")], claimTime(), LEASE_MS);
    expect(claim).toEqual({ kind: "wait", until: later });
    const { rows } = await db.pool.query<{ run_at: Date }>(
      `select run_at from graphile_worker.jobs where key = $1`,
      [`webhook:${endpoint.id}:email:a`],
    );
    expect(rows.map((r) => r.run_at)).toEqual([later]);
  });

  it("fails what is pending for a disabled endpoint and answers idle", async () => {
    const { account, endpoint, stream } = await setup([["a"]]);
    await disableEndpoint(db.pool, endpoint.id, "test");
    // A delivery fanned out while the endpoint was being disabled.
    await db.pool.query(`update webhook_deliveries set state = 'pending' where endpoint_id = $1`, [
      endpoint.id,
    ]);
    const [claim] = await claimStreamHeads(db.pool, [stream("a")], claimTime(), LEASE_MS);
    expect(claim?.kind).toBe("idle");
    const { data } = await listDeliveries(db.pool, account, endpoint.id);
    expect(data.map((d) => [d.state, d.lastError])).toEqual([["failed", "endpoint disabled"]]);
  });
});

describe("recordSuccesses", () => {
  it("records many successes in one statement and drops one whose delivery was deleted", async () => {
    const { account, endpoint, stream } = await setup([["a", "b", "c"]]);
    await db.pool.query(`update webhook_endpoints set failing_since = now() where id = $1`, [endpoint.id]);
    const claims = await claimStreamHeads(db.pool, ["a", "b", "c"].map(stream), claimTime(), LEASE_MS);
    const [a, b, c] = claims.map(delivery);
    await db.pool.query(`delete from webhook_deliveries where id = $1`, [b?.id]);
    const at = new Date("2030-01-01T00:00:00Z");
    await recordSuccesses(db.pool, [
      ok(a as ClaimedDelivery, at),
      ok(b as ClaimedDelivery),
      ok(c as ClaimedDelivery),
    ]);
    for (const d of [a, c]) {
      const shown = await getDelivery(db.pool, account, endpoint.id, d?.id ?? "");
      expect(shown.delivery).toMatchObject({ state: "succeeded", attempts: 1, lastStatusCode: 204 });
      expect(shown.attempts).toMatchObject([{ attempt: 1, statusCode: 204, durationMs: 3 }]);
    }
    expect((await getDelivery(db.pool, account, endpoint.id, a?.id ?? "")).delivery.deliveredAt).toEqual(at);
    const { rows } = await db.pool.query(`select failing_since from webhook_endpoints where id = $1`, [
      endpoint.id,
    ]);
    expect(rows).toEqual([{ failing_since: null }]);
  });
});

describe("getLastAttempt", () => {
  it("is the endpoint's latest recorded attempt, success or failure, whatever other endpoints did since", async () => {
    const one = await setup([["a", "b"]]);
    const other = await setup([["c"]]);
    expect(await getLastAttempt(db.pool, one.endpoint.id)).toBeUndefined();
    const [a, b] = (await claimStreamHeads(db.pool, ["a", "b"].map(one.stream), claimTime(), LEASE_MS)).map(
      delivery,
    );
    await recordSuccesses(db.pool, [ok(a as ClaimedDelivery)]);
    const failedAt = new Date();
    await completeAttempt(
      db.pool,
      b as ClaimedDelivery,
      { statusCode: 500, durationMs: 4 },
      DEFAULT_RETRY_POLICY,
      failedAt,
    );
    const [c] = (await claimStreamHeads(db.pool, [other.stream("c")], claimTime(), LEASE_MS)).map(delivery);
    await recordSuccesses(db.pool, [ok(c as ClaimedDelivery)]);
    expect(await getLastAttempt(db.pool, one.endpoint.id)).toMatchObject({
      deliveryId: b?.id,
      eventId: one.eventIds[0]?.[1],
      eventType: "email.queued",
      at: failedAt,
      statusCode: 500,
      succeeded: false,
    });
    expect(await getLastAttempt(db.pool, other.endpoint.id)).toMatchObject({
      deliveryId: c?.id,
      succeeded: true,
    });
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from webhook_attempts where endpoint_id = any($1::uuid[])`,
      [[one.endpoint.id, other.endpoint.id]],
    );
    expect(rows).toEqual([{ n: 3 }]);
  });
});

describe("createWebhookDispatcher", () => {
  it("fails only the stream whose own data breaks a shared claim", async () => {
    const { stream } = await setup([["a", "b", "c"]]);
    const dispatcher = createWebhookDispatcher(db.pool, {
      leaseMs: LEASE_MS,
      policy: DEFAULT_RETRY_POLICY,
      now: claimTime,
    });
    // The first two claims take the free slots; the other two share the next statement, which the malformed
    // endpoint id breaks.
    const claims = await Promise.allSettled([
      dispatcher.claim(stream("a")),
      dispatcher.claim(stream("b")),
      dispatcher.claim({ endpointId: "not-a-uuid", stream: "email:x" }),
      dispatcher.claim(stream("c")),
    ]);
    expect(claims.map((c) => (c.status === "fulfilled" ? c.value.kind : c.status))).toEqual([
      "deliver",
      "deliver",
      "rejected",
      "deliver",
    ]);
  });
});
