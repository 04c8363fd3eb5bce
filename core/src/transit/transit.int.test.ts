import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import type { TlsOutcome } from "../tls-reports/outcome.ts";
import { createTlsRecorder } from "../tls-reports/record.ts";
import { purgeTlsReportData } from "../tls-reports/store.ts";
import type { TransitOutcome } from "./rows.ts";
import { clearShapingState, publishShapingState, SHAPING_STALE_SECONDS } from "./shaping-state.ts";
import { normalizeTransitPeriod, readTransit } from "./store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const HOUR = new Date("2031-05-01T10:00:00Z");
const at = (minutes: number) => new Date(HOUR.getTime() + minutes * 60_000);
const PERIOD = { from: new Date("2031-05-01T00:00:00Z"), to: new Date("2031-05-02T00:00:00Z") };
const dane = (over: Partial<TlsOutcome> = {}): TlsOutcome => ({
  mechanism: "dane",
  policyDomain: "shared.test",
  policyType: "tlsa",
  enforced: true,
  mxHost: "mx.shared.test",
  result: "success",
  tls: true,
  verified: true,
  ...over,
});
const result = (over: Partial<TransitOutcome>): TransitOutcome => ({
  recipient: "a@shared.test",
  status: "accepted",
  response: "250 ok",
  destination: "host:mx.shared.test",
  tls: dane(),
  ...over,
});

describe("transit counts", () => {
  it("are written with the TLS report's sessions, per account, and read back per domain", async () => {
    const record = createTlsRecorder(db.pool);
    const mismatch = dane({
      result: "tlsa-invalid",
      verified: false,
      detail: "mx.shared.test: no TLSA record matches",
    });
    await Promise.all([
      record("one", [result({}), result({ recipient: "b@shared.test" })], at(1)),
      record(
        "one",
        [result({ status: "temporary", tls: mismatch, response: "DANE: no TLSA record matches" })],
        at(2),
      ),
      record(
        "one",
        [
          result({
            status: "temporary",
            code: 421,
            rateLimited: true,
            response: "421 4.7.0 slow down",
            tls: undefined,
          }),
        ],
        at(3),
      ),
      record(
        "one",
        [result({ recipient: "c@other.test", destination: "group:gmail", tls: undefined })],
        at(4),
      ),
      record("two", [result({ status: "permanent", code: 550, response: "550 5.1.1 unknown user" })], at(5)),
    ]);
    // The TLS report counts every account's sessions of the domain, once each.
    const { rows: sessions } = await db.pool.query(
      "select result_type, sessions::int from tls_sessions where policy_domain = 'shared.test' order by 1",
    );
    expect(sessions).toEqual([
      { result_type: "success", sessions: 2 },
      { result_type: "tlsa-invalid", sessions: 1 },
    ]);

    const one = await readTransit(db.pool, "one", PERIOD);
    expect(one.domains.map((d) => d.domain)).toEqual(["shared.test", "other.test"]);
    expect(one.domains[0]).toEqual({
      domain: "shared.test",
      delivered: 2,
      bounced: 0,
      deferred: 2,
      deferrals: [
        { reason: "rate_limited", count: 1 },
        { reason: "tls_policy", count: 1 },
      ],
      sessions: [
        { mechanism: "dane", result: "success", count: 1 },
        { mechanism: "dane", result: "tlsa-invalid", count: 1 },
      ],
      lastFailure: { at: at(3), reason: "421 4.7.0 slow down" },
      destinations: [{ destination: "host:mx.shared.test", name: "mx.shared.test", state: null }],
    });
    // Account two sent to the same domain: it sees its own bounce and session, nothing of account one.
    const two = await readTransit(db.pool, "two", PERIOD);
    expect(two.domains).toEqual([
      expect.objectContaining({
        domain: "shared.test",
        delivered: 0,
        bounced: 1,
        deferred: 0,
        sessions: [{ mechanism: "dane", result: "success", count: 1 }],
        lastFailure: { at: at(5), reason: "550 5.1.1 unknown user" },
      }),
    ]);
    expect((await readTransit(db.pool, "three", PERIOD)).domains).toEqual([]);
    // Outside the period: nothing.
    const before = { from: new Date("2031-04-30T00:00:00Z"), to: PERIOD.from };
    expect((await readTransit(db.pool, "one", before)).domains).toEqual([]);
  });

  it("keep the latest failure's reason across batches and hours", async () => {
    const record = createTlsRecorder(db.pool);
    const late = result({
      recipient: "x@late.test",
      status: "temporary",
      code: 451,
      response: "451 later one",
      tls: undefined,
    });
    await record("late", [late], at(50));
    await record("late", [{ ...late, response: "451 earlier one" }], at(20));
    await record("late", [{ ...late, response: "451 next hour" }], at(70));
    const [domain] = (await readTransit(db.pool, "late", PERIOD)).domains;
    expect(domain?.deferrals).toEqual([{ reason: "receiver_4xx", count: 3 }]);
    expect(domain?.lastFailure).toEqual({ at: at(70), reason: "451 next hour" });
  });

  it("are purged after 30 days with the TLS counts", async () => {
    await createTlsRecorder(db.pool)(
      "old",
      [result({ recipient: "a@old.test" })],
      new Date("2031-03-01T10:00:00Z"),
    );
    const count = async () =>
      (await db.pool.query("select 1 from transit_counts where account = 'old'")).rowCount;
    expect(await count()).toBeGreaterThan(0);
    await purgeTlsReportData(db.pool, new Date("2031-04-01T00:00:00Z"));
    expect(await count()).toBe(0);
    expect(await readTransit(db.pool, "one", PERIOD)).toMatchObject({
      domains: [{ delivered: 2 }, { delivered: 1 }],
    });
  });
});

describe("published shaping state", () => {
  it("shows the most recent live worker's state per destination and ignores stale workers", async () => {
    await createTlsRecorder(db.pool)(
      "shaped",
      [result({ recipient: "a@gmail.test", destination: "group:gmail", tls: undefined })],
      at(1),
    );
    const paused = new Date(Date.now() + 60_000);
    const state = {
      destination: "group:gmail",
      level: 1,
      concurrency: 20,
      ratePerMinute: 0,
      inFlight: 0,
      lastReply: "",
    };
    await publishShapingState(db.pool, "w1", [state]);
    await publishShapingState(db.pool, "w2", [
      { ...state, level: 0.5, concurrency: 10, pausedUntil: paused, lastReply: "421 4.7.28 unusual rate" },
    ]);
    // A worker gone silent holds an older, stale row: never shown.
    await publishShapingState(db.pool, "dead", [{ ...state, level: 0.0625, concurrency: 1 }]);
    await db.pool.query(
      "update destination_shaping set updated_at = now() - make_interval(secs => $1) where worker_id = 'dead'",
      [SHAPING_STALE_SECONDS + 1],
    );
    const view = async () => (await readTransit(db.pool, "shaped", PERIOD)).domains[0]?.destinations[0];
    expect(await view()).toEqual({
      destination: "group:gmail",
      name: "gmail",
      state: {
        backedOff: true,
        pausedUntil: paused,
        level: 0.5,
        concurrency: 10,
        ratePerMinute: 0,
        inFlight: 0,
        lastReply: "421 4.7.28 unusual rate",
        updatedAt: expect.any(Date),
        workers: 2,
        workersBackedOff: 1,
      },
    });
    // w2 recovered and dropped the destination; w1's full-level state is the one left.
    await publishShapingState(db.pool, "w2", []);
    expect((await view())?.state).toMatchObject({
      backedOff: false,
      pausedUntil: null,
      level: 1,
      workers: 1,
    });
    await clearShapingState(db.pool, "w1");
    expect((await view())?.state).toBeNull();
    const { rows } = await db.pool.query("select worker_id from destination_shaping order by 1");
    expect(rows).toEqual([{ worker_id: "dead" }]);
  });
});

describe("the transit period", () => {
  const NOW = new Date("2031-05-01T10:20:00Z");
  it("is whole UTC hours, the last 24 by default, at most 31 days", () => {
    expect(normalizeTransitPeriod({}, NOW)).toEqual({
      from: new Date("2031-04-30T11:00:00Z"),
      to: new Date("2031-05-01T11:00:00Z"),
    });
    expect(normalizeTransitPeriod({ from: "2031-05-01T08:30:00Z", to: "2031-05-01T09:00:00Z" }, NOW)).toEqual(
      {
        from: new Date("2031-05-01T08:00:00Z"),
        to: new Date("2031-05-01T09:00:00Z"),
      },
    );
    expect(() => normalizeTransitPeriod({ from: "2031-05-02T00:00:00Z" }, NOW)).toThrow(
      "from: a time before to",
    );
    expect(() => normalizeTransitPeriod({ from: "2031-03-01T00:00:00Z" }, NOW)).toThrow("at most 31 days");
    expect(() => normalizeTransitPeriod({ to: "yesterday" }, NOW)).toThrow("to: an RFC 3339 time");
    // On the hour's first millisecond, the hour begun is in the default period.
    expect(normalizeTransitPeriod({}, new Date("2031-05-01T10:00:00Z")).to).toEqual(
      new Date("2031-05-01T11:00:00Z"),
    );
  });
});
