/**
 * Audit of the forced generic plans (ADR 0008): the delivery path's first calls on an empty database, so that
 * one session caches its plans, then the tables grow (emails, suppressions, waiting jobs; "stale": without
 * ANALYZE or autovacuum, "analyze": with ANALYZE) and the same calls run again in that session under
 * auto_explain; prints every plan (look for Seq Scan).
 *   node bench/scale/generic-plan-audit.ts [emails=200000] [stale|analyze]
 */
import { randomUUID } from "node:crypto";
import { chmod, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrate } from "@mailroom/core/db";
import pg from "pg";
import { openBenchDatabase } from "../shared/support.ts";
import { seedEmails } from "./seed.ts";

const rows = Number(process.argv[2] ?? 200_000);
// "stale": no ANALYZE and no autovacuum after the growth (statistics lag); "analyze": ANALYZE after it.
const mode = process.argv[3] ?? "stale";
const say = (line: string) => process.stdout.write(`${line}\n`);
const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-plan-audit-"));
await chmod(dir, 0o755);
const db = await openBenchDatabase(dir, mode === "stale" ? { autovacuum: "off" } : {});
await migrate({ url: db.url, log: () => {} });
const session = new pg.Client({ connectionString: db.url });
const bulk = new pg.Client({ connectionString: db.url });
await session.connect();
await bulk.connect();
const notices: string[] = [];
session.on("notice", (n) => notices.push(n.message ?? ""));
await session.query(`insert into api_keys (key_id, account, secret_sha256, scopes)
                     values ('auditkey0001', mailroom_ensure_account('audit'), decode(repeat('00', 32), 'hex'), '{send}')`);
await session
  .query(`insert into webhook_endpoints (id, account, url, event_types)
                     select gen_random_uuid(), 'audit', 'https://hook.test/x', '{}'`)
  .catch((e) => say(`endpoint: ${e.message}`));
let next = 0;
async function newEmail(): Promise<string> {
  // Index 99 mod 100 is a queued email in the seed.
  const i = 10_000_000 + next++ * 100 + 99;
  await seedEmails(bulk, "audit", "auditkey0001", i, i + 1, () => {});
  const r = await bulk.query(
    "update emails set pending_recipients = to_addresses where message_id_header = $1 returning id",
    [`<seed-${i}@mailroom.bench>`],
  );
  return r.rows[0].id;
}
async function round(label: string): Promise<void> {
  say(`— ${label}`);
  const a = await newEmail();
  const b = await newEmail();
  const now = new Date().toISOString();
  await session.query("select * from mailroom_claim_emails($1::uuid[], $2::timestamptz[], $3::uuid[])", [
    [a, b],
    [now, now],
    [randomUUID(), randomUUID()],
  ]);
  const attempt = (id: string, status: string) => ({
    emailId: id,
    status,
    reason: null,
    response: "250 ok",
    results: {},
    pending: status === "deferred" ? ["x@example.test"] : [],
    bounced: [`bounce-${randomUUID()}@example.test`],
    bouncedDetail: ["550"],
    retryAt: now,
    eventId: randomUUID(),
    detail: {},
    trace: null,
  });
  await session.query("select mailroom_record_attempts($1::jsonb)", [
    JSON.stringify([attempt(a, "deferred"), attempt(b, "delivered")]),
  ]);
  // a again (deferred, so claimable), now with a suppressed recipient list
  await session.query("select * from mailroom_claim_emails($1::uuid[], $2::timestamptz[], $3::uuid[])", [
    [a],
    [now],
    [randomUUID()],
  ]);
  await session.query(
    "select mailroom_enqueue_deliver($1::uuid[], $2::timestamptz[], $3::jsonb[], $4::boolean[])",
    [
      [a, b],
      [now, now],
      [null, null],
      [true, false],
    ],
  );
  await session.query("select graphile_worker.add_job('audit_task', '{}'::json, job_key := $1)", [
    `audit:${a}`,
  ]);
}
await round("first calls, empty database (plans cached)");
say(`seeding ${rows} emails, ${rows / 2} suppressions, ${rows / 4} jobs …`);
await seedEmails(bulk, "audit", "auditkey0001", 0, rows, say);
await bulk.query(
  `insert into suppressions (account, address, reason)
                  select 'audit', 'sup-' || i || '@example.test', 'manual' from generate_series(1, $1::int) i`,
  [rows / 2],
);
await bulk.query(
  `select graphile_worker.add_jobs(array(select row('deliver', json_build_object('emailId', i), null,
                    now() + interval '1 day', null, 'k' || i, null, null)::graphile_worker.job_spec
                    from generate_series(1, $1::int) i))`,
  [rows / 4],
);
await bulk.query(`insert into api_keys (key_id, account, secret_sha256, scopes)
                  select 'k' || lpad(i::text, 11, '0'), mailroom_ensure_account('acct' || i), decode(repeat('00', 32), 'hex'), '{send}'
                  from generate_series(1, 5000) i`);
await bulk.query(`insert into webhook_endpoints (id, account, url, event_types)
                  select gen_random_uuid(), 'acct' || i, 'https://hook.test/x', '{}' from generate_series(1, 5000) i`);
if (mode === "analyze") await bulk.query("analyze");
await session.query("load 'auto_explain'");
for (const s of [
  "auto_explain.log_min_duration = 0",
  "auto_explain.log_nested_statements = on",
  "auto_explain.log_analyze = on",
  "auto_explain.log_buffers = on",
  "auto_explain.log_level = notice",
]) {
  await session.query(`set ${s}`);
}
notices.length = 0;
await round("same session after growth");
const plans = notices.join("\n\n");
process.stdout.write(plans);
await session.end();
await bulk.end();
await db.close();
