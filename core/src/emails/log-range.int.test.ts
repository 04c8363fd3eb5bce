import { describe, expect, it } from "vitest";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { listEmails, listEmailsQuery } from "./log.ts";

// Issue 33 item 2: the log's time range is an id range widened by the clocks' slack, then filtered exactly on
// created_at. The newest page walks back from `until` over the slack's emails, each read and filtered out.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("log-range", (setup) => {
  ({ db, keyId } = setup);
});

/** Emails of the account, one per `at` (ms), with an id of `at + idAheadMs` (the accepting pod's clock). */
async function insert(ats: number[], idAheadMs = 0, subject = "steady"): Promise<void> {
  await db.pool.query(
    `insert into emails (id, account, api_key_id, status, from_header, from_address, to_addresses, subject,
                         text, category, message_id_header, created_at)
     select (lpad(to_hex(t.at::bigint + $3), 12, '0') || '7' || substr(md5(t.at::text || $4), 1, 3) || '8'
             || substr(md5(t.at::text || $4), 4, 15))::uuid,
            'log-range', $1, 'delivered', 'a@range.test', 'a@range.test', array['b@range.test'], $4, 't', 'c',
            '<' || t.at || $4 || '@range.test>', to_timestamp(t.at / 1000.0)
     from unnest($2::float8[]) as t(at)`,
    [keyId, ats, idAheadMs, subject],
  );
}

describe("a time range of the log (issue 33)", () => {
  it("reads a minute of emails past `until` for its newest page, and still finds those whose id is ahead", async () => {
    const until = Date.now() - 3600_000;
    const since = until - 3600_000;
    // One email a second from ten minutes before `until` to ten minutes after it.
    await insert(Array.from({ length: 1200 }, (_, i) => until - 600_000 + i * 1000));
    // Accepted by a pod whose clock was 30 s ahead, just before `until`; and one whose transaction started
    // two minutes after its id was made, just after `since`.
    await insert([until - 500], 30_000, "ahead");
    await insert([since + 500], -120_000, "waited");
    await db.pool.query("analyze emails");
    const filter = { limit: 20, since: new Date(since), until: new Date(until) };

    const { text, values } = listEmailsQuery("log-range", filter);
    const { rows } = await db.pool.query(
      `explain (analyze, costs off, timing off, summary off) ${text}`,
      values,
    );
    const plan = rows.map((r) => r["QUERY PLAN"] as string).join("\n");
    const removed = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    // A minute of emails at one a second past `until` (five minutes, 300 of them, before).
    expect(removed, plan).toBeGreaterThan(0);
    expect(removed, plan).toBeLessThanOrEqual(62);

    const page = await listEmails(db.pool, "log-range", filter);
    expect(page.data[0]?.subject).toBe("ahead");
    expect(page.data.every((e) => e.createdAt.getTime() < until)).toBe(true);
    // Every email of the range, page after page, the one whose id is two minutes early included.
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const next = await listEmails(db.pool, "log-range", { ...filter, limit: 100, after });
      seen.push(...next.data.map((e) => e.subject));
      if (!next.hasMore) break;
      after = next.data.at(-1)?.id;
    }
    // 600 steady emails in [until - 10 min, until), of which those at or after `since` (all of them).
    expect(seen.filter((s) => s === "steady")).toHaveLength(600);
    expect(seen).toContain("ahead");
    expect(seen.at(-1)).toBe("waited");
  });
});
