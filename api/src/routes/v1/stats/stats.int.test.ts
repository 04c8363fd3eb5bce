import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, keyFor, startTestApp } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";

let db: TestDatabase;
let app: FastifyInstance;
let key: string;

/**
 * Counters as mailroom_count_email_stats leaves them (its own test drives the lifecycle): the hour's row, and
 * the same counts added to the day's.
 */
async function counted(
  account: string,
  dimension: string,
  hour: string,
  value: string,
  counts: number[],
  latency: number[],
) {
  await db.pool.query(
    `insert into email_stats (account, dimension, hour, value, sent, delivered, bounced, complained, failed, deferred, latency)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [account, dimension, hour, value, ...counts, latency],
  );
  await db.pool.query(
    `insert into email_stats_daily as s (account, dimension, day, value, sent, delivered, bounced, complained,
                                         failed, deferred, latency)
     values ($1, $2, date_trunc('day', $3::timestamptz, 'UTC'), $4, $5, $6, $7, $8, $9, $10, $11)
     on conflict (account, dimension, day, value) do update
       set sent = s.sent + excluded.sent, delivered = s.delivered + excluded.delivered,
           bounced = s.bounced + excluded.bounced, complained = s.complained + excluded.complained,
           failed = s.failed + excluded.failed, deferred = s.deferred + excluded.deferred,
           latency = mailroom_stats_add(s.latency, excluded.latency)`,
    [account, dimension, hour, value, ...counts, latency],
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db);
  key = await keyFor(db, "acme", ["send"]);
  // Two days of one account: 10 sent on the 1st (9 delivered within [1 s, 1.5 s)), 4 on the 2nd.
  const fast = [0, 0, 0, 0, 0, 0, 0, 9];
  await counted(
    "acme",
    "",
    "2031-03-01T08:00:00Z",
    "",
    [6, 5, 1, 0, 1, 2],
    fast.map((n) => (n ? 5 : 0)),
  );
  await counted(
    "acme",
    "",
    "2031-03-01T23:00:00Z",
    "",
    [4, 4, 0, 1, 0, 0],
    fast.map((n) => (n ? 4 : 0)),
  );
  await counted("acme", "", "2031-03-02T00:00:00Z", "", [4, 3, 1, 0, 0, 0], [0, 0, 0, 3]);
  await counted("acme", "domain", "2031-03-01T08:00:00Z", "one.test", [6, 5, 1, 0, 1, 2], []);
  await counted("acme", "domain", "2031-03-02T00:00:00Z", "two.test", [4, 3, 1, 0, 0, 0], []);
  await counted("acme", "domain", "2031-03-01T23:00:00Z", "two.test", [4, 4, 0, 1, 0, 0], []);
  await counted("other", "", "2031-03-01T08:00:00Z", "", [100, 100, 0, 0, 0, 0], []);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const get = (url: string, as = key) => injectAs(app, as, "GET", url);

describe("GET /v1/stats (issue 33 item 1)", () => {
  it("sums the account's counters per day, with totals, rate, latency and a split by domain", async () => {
    const res = await get("/v1/stats?from=2031-03-01T05:00:00Z&to=2031-03-02T12:00:00Z&bucket=day&by=domain");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      from: "2031-03-01T00:00:00.000Z",
      to: "2031-03-03T00:00:00.000Z",
      bucket: "day",
      by: "domain",
      totals: {
        sent: 14,
        delivered: 12,
        bounced: 2,
        complained: 1,
        failed: 1,
        deferred: 2,
        deliveryRate: 12 / 14,
      },
    });
    // 9 in [1 s, 1.5 s) and 3 in [200 ms, 300 ms): the median lands in the first, p99 near its top.
    expect(body.totals.latency.p50Ms).toBeGreaterThanOrEqual(1000);
    expect(body.totals.latency.p99Ms).toBeLessThanOrEqual(1500);
    expect(body.series.map((p: { start: string; sent: number }) => [p.start, p.sent])).toEqual([
      ["2031-03-01T00:00:00.000Z", 10],
      ["2031-03-02T00:00:00.000Z", 4],
    ]);
    expect(body.series[1].latency).toEqual({ p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
    expect(body.series[1].latency.p99Ms).toBeLessThan(300);
    expect(body.groups.map((g: { value: string; sent: number }) => [g.value, g.sent])).toEqual([
      ["two.test", 8],
      ["one.test", 6],
    ]);
  });

  it("answers empty hours as zeros, and nothing of another account", async () => {
    const res = await get("/v1/stats?from=2031-03-01T07:00:00Z&to=2031-03-01T10:00:00Z");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.by).toBeNull();
    expect(body.groups).toEqual([]);
    expect(
      body.series.map((p: { sent: number; deliveryRate: number | null }) => [p.sent, p.deliveryRate]),
    ).toEqual([
      [0, null],
      [6, 5 / 6],
      [0, null],
    ]);
    const stranger = await keyFor(db, "stranger", ["send"]);
    const theirs = (
      await get("/v1/stats?from=2031-03-01T00:00:00Z&to=2031-03-02T00:00:00Z", stranger)
    ).json();
    expect(theirs.totals).toMatchObject({ sent: 0, latency: { p50Ms: null, p99Ms: null } });
  });

  it("refuses parameters it cannot answer with 400 validation_error, and keys without send", async () => {
    for (const [query, message] of [
      ["bucket=week", /bucket/],
      ["by=recipient", /by/],
      ["from=yesterday", /from/],
      ["from=2031-03-02T00:00:00Z&to=2031-03-01T00:00:00Z", /from: a time before to/],
      ["from=2030-01-01T00:00:00Z&to=2031-03-01T00:00:00Z", /at most 31 days/],
      ["limit=5", /limit/],
    ] as const) {
      const res = await get(`/v1/stats?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toMatchObject({
        error: "validation_error",
        message: expect.stringMatching(message),
      });
    }
    const domainsOnly = await keyFor(db, "acme", ["domains"]);
    expect((await get("/v1/stats", domainsOnly)).json()).toMatchObject({ error: "insufficient_scope" });
  });
});
