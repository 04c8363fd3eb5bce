/**
 * The backlog gauges' query (core/src/emails/backlog.ts) on a large emails table, with and without the
 * partial index of migration 0019: EXPLAIN ANALYZE of each, median of several runs. Figures go to ADR 0017.
 *
 *   node bench/scale/backlog-query.ts [rows=1000000] [queued=5000]
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPool, migrate, startEmbeddedPostgres } from "@mailroom/core/db";
import { BACKLOG_SQL } from "../../core/src/emails/backlog.ts";

const rows = Number(process.argv[2] ?? 1_000_000);
const queued = Number(process.argv[3] ?? 5_000);
const RUNS = 7;
const say = (line: string) => process.stdout.write(`${line}\n`);

const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-backlog-"));
await chmod(dir, 0o755);
const pg = await startEmbeddedPostgres({
  databaseDir: path.join(dir, "pg"),
  port: 54_000 + (process.pid % 1000),
  persistent: false,
});
try {
  await pg.createDatabase("backlog");
  const url = pg.urlFor("backlog");
  await migrate({ url, log: () => {} });
  const pool = createPool({ url, max: 2, applicationName: "bench-backlog" });
  await pool.query(`insert into api_keys (key_id, account, secret_sha256, scopes)
                    values ('benchkey0001', mailroom_ensure_account('bench'), decode(repeat('00', 32), 'hex'), '{send}')`);
  say(
    `› inserting ${rows.toLocaleString()} emails (${queued.toLocaleString()} queued, ${queued / 2} deferred, 500 scheduled, 100 sending) …`,
  );
  // Ids are UUIDv7-like (time first), as the API makes them: the oldest rows have the smallest ids. In chunks,
  // each well inside the pool's query timeout on a busy machine.
  const CHUNK = 50_000;
  for (let from = 1; from <= rows; from += CHUNK) {
    await pool.query(
      `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, text, category,
                           message_id_header, created_at)
       select mailroom_uuidv7_floor(now() - make_interval(secs => ($1 - g) * 0.05)),
              'bench', 'benchkey0001',
              case when g > $1 - $2 then 'queued'
                   when g > $1 - $2 - $2 / 2 then 'deferred'
                   when g > $1 - $2 - $2 / 2 - 500 then 'scheduled'
                   when g > $1 - $2 - $2 / 2 - 600 then 'sending'
                   else 'delivered' end,
              'a@bench.test', '{b@example.test}', 's', 't', 'transactional', '<' || g || '@bench>',
              now() - make_interval(secs => ($1 - g) * 0.05)
         from generate_series($3::int, least($3::int + $4::int - 1, $1::int)) g`,
      [rows, queued, from, CHUNK],
    );
    if ((from - 1 + CHUNK) % 200_000 === 0) say(`  ${(from - 1 + CHUNK).toLocaleString()} rows`);
  }
  await pool.query("vacuum analyze emails");

  async function measure(label: string): Promise<void> {
    const times: number[] = [];
    let plan = "";
    for (let i = 0; i < RUNS; i++) {
      const { rows: lines } = await pool.query<{ "QUERY PLAN": string }>(
        `explain (analyze, buffers) ${BACKLOG_SQL}`,
      );
      plan = lines.map((l) => l["QUERY PLAN"]).join("\n");
      times.push(Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1]));
    }
    times.sort((a, b) => a - b);
    say(
      `\n## ${label}: median ${times[Math.floor(RUNS / 2)]} ms (min ${times[0]}, max ${times.at(-1)}) over ${RUNS} runs\n`,
    );
    say(plan);
  }

  await measure("with emails_unsent (migration 0019)");
  await pool.query("drop index emails_unsent");
  await pool.query("analyze emails");
  await measure("without emails_unsent");
  const { rows: size } = await pool.query<{ table: string; n: string }>(
    "select pg_size_pretty(pg_relation_size('emails')) as table, count(*) as n from emails",
  );
  say(
    `\nemails: ${size[0]?.n} rows, heap ${size[0]?.table}; server ${(await pool.query("show server_version")).rows[0]?.server_version}`,
  );
  await pool.end();
} finally {
  await pg.stop();
  await rm(dir, { recursive: true, force: true });
}
