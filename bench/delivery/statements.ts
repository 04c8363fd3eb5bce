/**
 * Postgres's side of a delivery, per statement (BENCH_PG_STATEMENTS=1 on bench/delivery/main.ts): the bench's own
 * embedded server loads pg_stat_statements, the counters are reset when the Mailroom throughput phase starts
 * measuring and read when its last message reached the sink, so they hold that phase alone — the
 * orchestrator's accepts included, each statement shown by its text. Execution time is the server's wall
 * time inside each statement (CPU and waits), not the round trip.
 */
import type { Pool } from "@mailroom/core/db";

/** Server settings that make pg_stat_statements available (top-level statements only: no double counting). */
export const STATEMENT_SETTINGS = {
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "top",
} as const;

export interface StatementMeter {
  reset(): Promise<void>;
  /** The top statements by total execution time, as printable lines, per message of the phase. */
  report(messages: number): Promise<string[]>;
}

export async function statementMeter(pool: Pool): Promise<StatementMeter> {
  await pool.query("create extension if not exists pg_stat_statements");
  return {
    reset: async () => {
      await pool.query("select pg_stat_statements_reset()");
    },
    report: async (messages) => {
      const { rows } = await pool.query<{ query: string; calls: string; total: number; mean: number }>(
        `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls, total_exec_time as total,
                mean_exec_time as mean
         from pg_stat_statements where query not ilike '%pg_stat_statements%'
         order by total_exec_time desc limit 12`,
      );
      const all = rows.reduce((sum, r) => sum + r.total, 0);
      return [
        `    Postgres, per statement over the phase (${messages} messages; top 12 by execution time, ${(all / messages).toFixed(3)} ms per message in all):`,
        "    | statement | calls | total ms | mean ms | ms per message |",
        "    |---|---:|---:|---:|---:|",
        ...rows.map(
          (r) =>
            `    | \`${r.query.slice(0, 110)}\` | ${r.calls} | ${r.total.toFixed(0)} | ${r.mean.toFixed(3)} | ${(r.total / messages).toFixed(3)} |`,
        ),
      ];
    },
  };
}
