import { randomUUID } from "node:crypto";
import pg from "pg";
import { expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { acceptEmails } from "../emails/accept.ts";
import { createSsrfGuard } from "../webhooks/ssrf.ts";
import { createEndpoint } from "../webhooks/store.ts";

// ADR 0008: a forced generic plan is made once per session, with the statistics of that moment, and kept for
// the life of the connection. The delivery path's plans, made here on a fresh database (empty tables), must
// probe the tables that grow without bound by index: a sequential scan then would read the whole table on
// every later call, whatever its size. pg_stat_xact_user_tables counts this session's scans in the open
// transaction, for any table size (a sequential scan of an empty table counts too).
const GROWING = [
  "emails",
  "email_events",
  "email_attachments",
  "suppressions",
  "webhook_events",
  "_private_jobs",
];

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("plans", (setup) => {
  ({ db, keyId } = setup);
});

const attachment = { filename: "a.txt", contentType: "text/plain", content: Buffer.from("a") };
const accept = async (n: number) =>
  (
    await acceptEmails(
      db.pool,
      { hostname: "test" },
      Array.from({ length: n }, () => acceptItem("plans", keyId, { draft: { attachments: [attachment] } })),
    )
  ).map((r) => String(r.messageId));

/** Claims and records two emails in `session`, in a transaction rolled back after; this session's scans. */
async function deliverTwo(session: pg.Client, [a, b]: string[]) {
  await session.query("begin");
  try {
    const now = new Date().toISOString();
    await session.query("select * from mailroom_claim_emails($1::uuid[], $2::timestamptz[], $3::uuid[])", [
      [a, b],
      [now, now],
      [randomUUID(), randomUUID()],
    ]);
    const attempt = (emailId: string | undefined, status: string) => ({
      emailId,
      status,
      reason: null,
      response: "250 ok",
      results: {},
      pending: [],
      bounced: [`bounce-${randomUUID()}@example.test`],
      bouncedDetail: ["550 5.1.1 unknown"],
      retryAt: now,
      eventId: randomUUID(),
      detail: {},
      trace: null,
    });
    await session.query("select mailroom_record_attempts($1::jsonb)", [
      JSON.stringify([attempt(a, "deferred"), attempt(b, "delivered")]),
    ]);
    const { rows } = await session.query<{
      relname: string;
      seq_scan: string;
      idx_scan: string;
      idx_tup_fetch: string;
    }>(
      // A partitioned table's scans are counted on its partitions (emails, email_events: ADR 0043, 0055).
      `select * from (
         select coalesce(p.inhparent::regclass::text, s.relname) as relname, sum(s.seq_scan)::text as seq_scan,
                sum(s.idx_scan)::text as idx_scan, sum(s.idx_tup_fetch)::text as idx_tup_fetch
         from pg_stat_xact_user_tables s left join pg_inherits p on p.inhrelid = s.relid
         group by 1) t
       where relname = any($1)`,
      [GROWING],
    );
    return rows;
  } finally {
    await session.query("rollback");
  }
}

it("plans the delivery functions' first calls as index probes of the tables that grow", async () => {
  await createEndpoint(
    db.pool,
    { account: "plans", url: "http://127.0.0.1:9/hook" },
    { ssrf: createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] }) },
  );
  const session = new pg.Client({ connectionString: db.url });
  await session.connect();
  try {
    const rows = await deliverTwo(session, await accept(2));
    const scanned = rows.filter((r) => Number(r.seq_scan) > 0).map((r) => r.relname);
    expect(scanned).toEqual([]);
    // The calls did reach these tables (by index): the check above is not vacuous.
    const probed = rows.filter((r) => Number(r.idx_scan) > 0).map((r) => r.relname);
    expect(probed).toEqual(expect.arrayContaining(["emails", "email_attachments", "_private_jobs"]));

    // The tables grow (no ANALYZE); the session keeps the plans made above. Each call still reads only the
    // rows of the two emails it serves, not an index end to end (a hashed subplan or a merge join would).
    const grown = await accept(400);
    const later = await deliverTwo(session, grown.slice(-2));
    const fetched = Object.fromEntries(later.map((r) => [r.relname, Number(r.idx_tup_fetch)]));
    for (const table of ["emails", "email_attachments"]) expect(fetched[table], table).toBeLessThan(50);
  } finally {
    await session.end();
  }
});
