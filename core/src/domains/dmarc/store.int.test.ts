import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../../../../test/support/db.ts";
import { withTransaction } from "../../db/pool.ts";
import { generateKek } from "../crypto.ts";
import { createDomain } from "../store.ts";
import type { AggregateReport } from "./parse.ts";
import { DMARC_RETENTION_DAYS, getDmarcSummary, purgeDmarcData, storeAggregateReport } from "./store.ts";

let db: TestDatabase;
let domainId: string;
const begin = new Date("2031-03-10T00:00:00Z");

beforeAll(async () => {
  db = await createTestDatabase();
  const domain = await createDomain(db.pool, generateKek(), { account: "shop", name: "shop.test" });
  await markDomainVerified(db.pool, domain.id);
  domainId = domain.id;
});
afterAll(async () => {
  await db.drop();
});

const report = (reportId: string, at = begin): AggregateReport => ({
  reporter: "receiver.example",
  reportId,
  begin: at,
  end: new Date(at.getTime() + 86_399_000),
  policyDomain: "shop.test",
  records: [
    { sourceIp: "192.0.2.1", count: 4, headerFrom: "shop.test", dkim: "pass", spf: "fail" },
    { sourceIp: "192.0.2.1", count: 1, headerFrom: "shop.test", dkim: "fail", spf: "fail" },
    { sourceIp: "192.0.2.9", count: 7, headerFrom: "other.test", dkim: "pass", spf: "pass" },
  ],
});
const store = (r: AggregateReport, account = "shop") =>
  withTransaction(db.pool, (client) =>
    storeAggregateReport(client, {
      account,
      inboundReportId: "0190a4c2-7a8b-7c00-8000-000000000001",
      report: r,
    }),
  );

describe("DMARC report storage", () => {
  it("adds a report's records of the account's own domain once, per day and source", async () => {
    expect(await store(report("a"))).toEqual({
      stored: true,
      domains: [{ domain: "shop.test", messages: 5, sources: 1 }],
      foreign: 1,
    });
    expect(await store(report("a"))).toEqual({ stored: false, reason: "duplicate", foreign: 1 });
    expect(await store(report("b"))).toMatchObject({ stored: true });
    expect(await store(report("c"), "rival")).toEqual({
      stored: false,
      reason: "domain_not_owned",
      foreign: 3,
    });
    const summary = await getDmarcSummary(db.pool, domainId, { days: 1, now: begin });
    expect(summary).toMatchObject({ reports: 2, messages: 10, passed: 8, passRate: 0.8 });
    expect(summary.failingSources).toEqual([
      {
        sourceIp: "192.0.2.1",
        messages: 10,
        passed: 8,
        dkimAligned: 8,
        spfAligned: 0,
        passRate: 0.8,
        reporters: ["receiver.example"],
        lastSeen: "2031-03-10",
      },
    ]);
    // The day before the report: nothing.
    expect(
      await getDmarcSummary(db.pool, domainId, { days: 1, now: new Date("2031-03-09T12:00:00Z") }),
    ).toMatchObject({ reports: 0, messages: 0, passRate: null, sources: [] });
  });

  it("forgets report days past the retention, keeping the recent ones", async () => {
    const old = new Date(begin.getTime() - (DMARC_RETENTION_DAYS + 1) * 86_400_000);
    await store(report("old", old));
    expect(await purgeDmarcData(db.pool, begin)).toBe(1);
    const { rows } = await db.pool.query(`select report_id from dmarc_reports order by report_id`);
    expect(rows.map((r) => r.report_id)).toEqual(["a", "b"]);
    expect((await getDmarcSummary(db.pool, domainId, { days: 1, now: begin })).messages).toBe(10);
  });
});
