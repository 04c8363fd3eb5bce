/**
 * What the pending migrations cost over a kept history, and the log's queries before and after them, without
 * changing that history (ADR 0061, "What the search costs every accepted email"): in one transaction on the
 * kept database of bench/scale (kept.ts), it times core's listEmails over the log's filters (LOG_FILTERS,
 * search.ts: first page and 90 % deep, BENCH_SCALE_REPEAT calls each, p50 and the slowest), applies every
 * migration of core/migrations the database has not run and then core/sql/functions, each timed, analyses,
 * times the filters again, and rolls everything back. A kept history shared with other runs stays as it was; the next bench run migrates
 * it for real.
 *
 * Run: `BENCH_SCALE_KEEP=/work/bench-cache/scale-10m npx node bench/scale/trial-migrations.ts [name …]` (names
 * pick filters whose name contains one of them; default: every `q` filter). The times of the filters
 * "after" are those of a session that has just written the new tables (warm); "before" are as the history
 * was left; a filter with words is timed after only (this code's statement reads the new table). One client,
 * no request timeout (a migration over 10M rows takes minutes).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { FUNCTIONS_DIR, MIGRATIONS_DIR, sqlFiles } from "../../core/src/db/migrate.ts";
import { listEmails } from "../../core/src/emails/log.ts";
import { ACCOUNT } from "../delivery/setup.ts";
import { ms } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { percentile } from "../shared/percentile.ts";
import { openScaleDatabase } from "./kept.ts";
import { LOG_FILTERS } from "./search.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);
const REPEAT = Number(process.env.BENCH_SCALE_REPEAT ?? 40);

async function timed(client: pg.Client, sql: string, values: unknown[] = []): Promise<number> {
  const start = performance.now();
  await client.query(sql, values);
  return performance.now() - start;
}

/** Each picked filter, first page and 90 % deep: p50 and the slowest of REPEAT calls. */
async function timeFilters(client: pg.Client, picked: string[], label: string): Promise<void> {
  const { rows } = await client.query<{ n: string }>("select count(*) as n from emails where account = $1", [
    ACCOUNT,
  ]);
  const cursor = (
    await client.query<{ id: string }>(
      "select id from emails where account = $1 order by id desc offset $2 limit 1",
      [ACCOUNT, Math.floor(Number(rows[0]?.n ?? 0) * 0.9)],
    )
  ).rows[0]?.id;
  for (const [name, filter] of LOG_FILTERS) {
    if (picked.length ? !picked.some((p) => name.includes(p)) : !name.startsWith("q:")) continue;
    // Before, the statement is this code's, which reads the tables the migrations make: words are timed after
    // only (their times before are in BENCHMARKS.md's runs of the previous code).
    if (label === "before" && filter.search?.words.length) continue;
    const parts: string[] = [];
    for (const [page, after] of [
      ["first page", undefined],
      ["90 % deep", cursor],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < REPEAT; i += 1) {
        const start = performance.now();
        await listEmails(client, ACCOUNT, { ...filter, limit: 20, after });
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      parts.push(
        `${page} p50 ${ms(percentile(times, 50))} slowest ${ms(times[times.length - 1] ?? Number.NaN)} ms`,
      );
    }
    say(`  ${label} ${name}: ${parts.join("; ")}`);
  }
}

async function main(onCleanup: OnCleanup): Promise<number> {
  if (!process.env.BENCH_SCALE_KEEP)
    throw new Error("BENCH_SCALE_KEEP: the directory of a kept bench/scale run");
  if (!Number.isInteger(REPEAT) || REPEAT < 1)
    throw new Error("BENCH_SCALE_REPEAT must be a positive integer");
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-trial-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  const scale = await openScaleDatabase(tmp, say);
  onCleanup(() => scale.db.close());
  if (!scale.seeded)
    throw new Error("BENCH_SCALE_KEEP holds no seeded history: run bench/scale/main.ts first");
  const client = new pg.Client({ connectionString: scale.db.url, application_name: "bench-scale-trial" });
  await client.connect();
  onCleanup(() => client.end());
  const picked = process.argv.slice(2);
  const done = new Set(
    (await client.query<{ name: string }>("select name from mailroom_migrations")).rows.map((r) => r.name),
  );
  const pending = (await sqlFiles(MIGRATIONS_DIR)).filter((f) => !done.has(path.basename(f, ".sql")));
  say(
    `› ${scale.seeded.toLocaleString("en-US")} seeded emails; pending: ${pending.map((f) => path.basename(f)).join(", ") || "none"}`,
  );
  await client.query("begin");
  onCleanup(async () => {
    await client.query("rollback");
    say("› rolled back: the kept history is as it was");
  });
  await timeFilters(client, picked, "before");
  for (const file of pending) {
    const took = await timed(client, await readFile(file, "utf8"));
    say(`  migration ${path.basename(file)}: ${(took / 1000).toFixed(1)} s`);
  }
  let functions = 0;
  for (const file of await sqlFiles(FUNCTIONS_DIR))
    functions += await timed(client, await readFile(file, "utf8"));
  say(`  core/sql/functions: ${(functions / 1000).toFixed(1)} s`);
  say(`  analyse: ${((await timed(client, "analyze")) / 1000).toFixed(1)} s`);
  const { rows } = await client.query<{ name: string; bytes: string }>(
    `select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c
     where c.relname in ('email_search_texts', 'email_addresses') and c.relkind = 'r'`,
  );
  for (const r of rows)
    say(
      `  ${r.name}: ${(Number(r.bytes) / scale.seeded).toFixed(0)} bytes per seeded email (table, indexes, TOAST)`,
    );
  await timeFilters(client, picked, "after");
  return 0;
}

await runBenchmark(6 * 3600_000, main);
