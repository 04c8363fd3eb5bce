/**
 * The tables of bench/send/main.ts's baselines. The bare INSERT's table lives in Mailroom's database (it uses
 * nothing of Mailroom's schema). The naive durable build gets a database of its own on the same Postgres
 * server, where graphile-worker is installed the stock way: by its own migrations (`runMigrations`, the
 * version the project depends on), with none of Mailroom's migrations or settings. Mailroom tunes
 * graphile-worker's functions in its own database (migration 0012 forces generic plans on them,
 * core/sql/settings turns sequential scans off inside them; ADR 0008); a team building on the library would
 * not have that, so the baseline's `add_job` must not get it either.
 */
import { createPool, type Pool } from "@mailroom/core/db";
import { runMigrations } from "graphile-worker";
import type { BenchDatabase } from "../shared/support.ts";

/** One simple email table, as a team would create it. */
const createEmailTable = (pool: Pool, table: string) =>
  pool.query(
    `create table ${table} (id bigint generated always as identity primary key, recipient text not null,
       subject text not null, body text, created_at timestamptz not null default now())`,
  );

export interface NaiveDatabase {
  url: string;
  /** A pool on it for the orchestrator (row checks); the caller ends it. */
  pool: Pool;
}

/**
 * Creates `bench_baseline` in Mailroom's database, and the naive durable build's own database with a stock
 * graphile-worker schema and its `bench_durable` table.
 */
export async function prepareBaselines(db: BenchDatabase, mailroom: Pool): Promise<NaiveDatabase> {
  await createEmailTable(mailroom, "bench_baseline");
  const url = await db.createSibling();
  await runMigrations({ connectionString: url });
  const pool = createPool({ url, max: 2, applicationName: "bench-send" });
  try {
    await createEmailTable(pool, "bench_durable");
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { url, pool };
}
