import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { createTlsRecorder, recordTlsSessions, type TlsSessionRow } from "./record.ts";
import { buildTlsReport, reportIdOf } from "./report.ts";
import { findDueReports, findPendingSends, MAX_SEND_ATTEMPTS, saveReport, withPendingSend } from "./store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const NOW = new Date("2031-05-02T00:10:00Z");
const reporter = { organizationName: "T", contactInfo: "t@reports.test", submitter: "reports.test" };
const row = (over: Partial<TlsSessionRow> = {}): TlsSessionRow => ({
  day: "2031-05-01",
  policy_domain: "twin.test",
  policy_type: "no-policy-found",
  policy_sha256: "0".repeat(64),
  policy_strings: [],
  mx_host: "mx.twin.test",
  receiving_ip: "",
  result_type: "success",
  failure_reason: "",
  sessions: 1,
  ...over,
});
const sendsOf = async (reportId: string) =>
  (
    await db.pool.query<{ status: string; attempts: number }>(
      "select status, attempts from tls_report_sends where report_id = $1",
      [reportId],
    )
  ).rows;

describe("TLS report storage", () => {
  it("adds concurrent sessions to one count, and one bad item fails alone", async () => {
    const record = createTlsRecorder(db.pool);
    const outcome = {
      mechanism: "opportunistic" as const,
      policyDomain: "many.test",
      policyType: "no-policy-found" as const,
      enforced: false,
      result: "success" as const,
      tls: true,
      verified: false,
    };
    const bad = { ...outcome, result: "made-up" as "success" };
    const accepted = (tls: typeof outcome) => ({
      recipient: "a@many.test",
      status: "accepted" as const,
      response: "250",
      tls,
    });
    const results = await Promise.allSettled([
      ...Array.from({ length: 30 }, () => record("a", [accepted(outcome)], new Date("2031-05-01T12:00:00Z"))),
      record("a", [accepted(bad)], new Date("2031-05-01T12:00:00Z")),
    ]);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    const { rows } = await db.pool.query(
      "select result_type, sessions from tls_sessions where policy_domain = 'many.test'",
    );
    expect(rows).toEqual([{ result_type: "success", sessions: "30" }]);
  });

  it("keeps a day's report once, however many runs make it", async () => {
    await recordTlsSessions(db.pool, { sessions: [row()], transit: [] });
    expect(await findDueReports(db.pool, NOW, 3)).toContainEqual({
      policyDomain: "twin.test",
      day: "2031-05-01",
    });
    const reportId = reportIdOf("2031-05-01", "twin.test", reporter.submitter);
    const report = buildTlsReport(reporter, "twin.test", "2031-05-01", []);
    const input = {
      policyDomain: "twin.test",
      day: "2031-05-01",
      reportId,
      rua: ["mailto:a@twin.test"],
      report,
    };
    await Promise.all([saveReport(db.pool, input), saveReport(db.pool, input), saveReport(db.pool, input)]);
    expect(await sendsOf(reportId)).toEqual([{ status: "pending", attempts: 0 }]);
    expect(await findDueReports(db.pool, NOW, 3)).not.toContainEqual(
      expect.objectContaining({ policyDomain: "twin.test" }),
    );
  });

  it("makes a send once when two runs reach it together", async () => {
    const reportId = reportIdOf("2031-05-01", "twin.test", reporter.submitter);
    let calls = 0;
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const send = async () => {
      calls += 1;
      entered();
      await held;
      return { ok: true as const };
    };
    const key = { reportId, rua: "mailto:a@twin.test" };
    const first = withPendingSend(db.pool, key, send);
    await inside;
    // The second run finds the row locked by the first, and skips it rather than wait and send again.
    const second = await withPendingSend(db.pool, key, send);
    release();
    expect([await first, second]).toEqual([{ ok: true }, undefined]);
    expect(calls).toBe(1);
    expect(await withPendingSend(db.pool, key, send)).toBeUndefined();
    expect(await sendsOf(reportId)).toEqual([{ status: "sent", attempts: 1 }]);
  });

  it("gives a failing send up after its last attempt, and a throwing one counts as failed", async () => {
    const reportId = reportIdOf("2031-05-01", "give-up.test", reporter.submitter);
    const report = buildTlsReport(reporter, "give-up.test", "2031-05-01", []);
    await saveReport(db.pool, {
      policyDomain: "give-up.test",
      day: "2031-05-01",
      reportId,
      rua: ["https://x.test/"],
      report,
    });
    const key = { reportId, rua: "https://x.test/" };
    for (let i = 1; i < MAX_SEND_ATTEMPTS; i += 1) {
      expect(
        await withPendingSend(db.pool, key, async () => ({ ok: false, error: "HTTP 500" })),
      ).toMatchObject({ ok: false });
    }
    expect((await findPendingSends(db.pool, NOW, 3)).map((p) => p.reportId)).toContain(reportId);
    const thrown = await withPendingSend(db.pool, key, async () => {
      throw new Error("socket hang up");
    });
    expect(thrown).toEqual({ ok: false, error: "socket hang up" });
    expect(await sendsOf(reportId)).toEqual([{ status: "failed", attempts: MAX_SEND_ATTEMPTS }]);
    expect((await findPendingSends(db.pool, NOW, 3)).map((p) => p.reportId)).not.toContain(reportId);
  });
});
