/**
 * The plans of bench/scale's log queries over a kept history (issue 33 item 2): for each filter of
 * LOG_FILTERS (search.ts), `explain (analyze, buffers)` of core's listEmails statement, first page then a page
 * 90 % deep, with the I/O time of the pages read; the GIN pending list of the trigram index first. Reads what
 * `make bench-scale` timed, on the same data, without the half-hour seed.
 *
 * Run: `BENCH_SCALE_KEEP=/work/bench-cache/scale-10m npx node bench/scale/explain.ts [name …]`, after a bench
 * run with that directory (it holds the seeded database, bench/scale/kept.ts); names pick filters whose name
 * contains one of them (default: all). The database is explained as the last bench run left it (not migrated:
 * a before/after comparison explains it before the run that applies new migrations). BENCH_SCALE_CALLS (1)
 * runs each statement that many times and explains the last (1: the first call, the one a p99 of few calls is).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createPool } from "@mailroom/core/db";
import { listEmailsQuery } from "../../core/src/emails/log.ts";
import { ACCOUNT } from "../delivery/setup.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { openScaleDatabase } from "./kept.ts";
import { LOG_FILTERS } from "./search.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);
const CALLS = Number(process.env.BENCH_SCALE_CALLS ?? 1);

async function main(onCleanup: OnCleanup): Promise<number> {
  if (!process.env.BENCH_SCALE_KEEP)
    throw new Error("BENCH_SCALE_KEEP: the directory of a kept bench/scale run");
  if (!Number.isInteger(CALLS) || CALLS < 1) throw new Error("BENCH_SCALE_CALLS must be a positive integer");
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-explain-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  const scale = await openScaleDatabase(tmp, say);
  onCleanup(() => scale.db.close());
  if (!scale.seeded)
    throw new Error("BENCH_SCALE_KEEP holds no seeded history: run bench/scale/main.ts first");
  const pool = createPool({ url: scale.db.url, max: 1, applicationName: "bench-scale-explain" });
  onCleanup(() => pool.end());
  const client = await pool.connect();
  onCleanup(async () => client.release());
  await client.query("set track_io_timing = on");
  await client.query("create extension if not exists pgstattuple");
  const pending = await client.query<{ pages: number; tuples: string }>(
    `select s.pending_pages as pages, s.pending_tuples as tuples
     from pgstatginindex('email_search_texts_words') s`,
  );
  say(`GIN pending list of email_search_texts_words: ${JSON.stringify(pending.rows)}`);
  const { rows } = await client.query<{ n: string }>("select count(*) as n from emails where account = $1", [
    ACCOUNT,
  ]);
  const count = Number(rows[0]?.n ?? 0);
  const cursor = (
    await client.query<{ id: string }>(
      "select id from emails where account = $1 order by id desc offset $2 limit 1",
      [ACCOUNT, Math.floor(count * 0.9)],
    )
  ).rows[0]?.id;
  say(`${count.toLocaleString("en-US")} emails; the deep page's cursor ${cursor}`);
  const picked = process.argv.slice(2);
  for (const [name, filter] of LOG_FILTERS) {
    if (picked.length && !picked.some((p) => name.includes(p))) continue;
    for (const [page, after] of [
      ["first page", undefined],
      ["90 % deep", cursor],
    ] as const) {
      const { text, values } = listEmailsQuery(ACCOUNT, { ...filter, limit: 20, after });
      for (let i = 1; i < CALLS; i += 1) await client.query(text, values);
      // A plan that reads the whole log takes minutes at 10M: the pool's request timeout (30 s) ends it, and
      // its plan is shown without running it.
      const plan = await client
        .query(`explain (analyze, buffers, settings) ${text}`, values)
        .catch(async (error: Error) => ({
          rows: [
            { "QUERY PLAN": `(${error.message}; its plan without running it:)` },
            ...(await client.query(`explain ${text}`, values)).rows,
          ],
        }));
      say(`\n=== ${name}, ${page}\n${plan.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
  }
  return 0;
}

await runBenchmark(3600_000, main);
