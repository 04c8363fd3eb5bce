import type { Pool } from "pg";
import { type GuardRun, runReputationGuard } from "../../core/src/reputation/guard.ts";

/**
 * The reputation guard run until it has counted every event on the timeline now, as its minute job would over
 * a few runs. One run with no settle time is not enough: the roll-up reads up to the horizon noted by the run
 * before (ADR 0052), and the worker's own `guard_reputation` job may have noted one minutes ago, before the
 * events the test waits for; that run then notes today's horizon, which the next one reads. Returns the last
 * run, with every pause of the runs on the way.
 */
export async function runGuardThroughNow(pool: Pool): Promise<GuardRun> {
  const { rows } = await pool.query<{ max: string }>("select coalesce(max(id), 0) as max from email_events");
  const through = BigInt(rows[0]?.max ?? 0);
  const paused: GuardRun["paused"] = [];
  for (let run = 1; ; run++) {
    const last = await runReputationGuard(pool, { now: new Date(), settleSeconds: 0 });
    paused.push(...last.paused);
    const state = await pool.query<{ rolled: string }>(
      "select rolled_through as rolled from reputation_rollup",
    );
    if (BigInt(state.rows[0]?.rolled ?? 0) >= through) return { ...last, paused };
    if (run === 5) throw new Error(`the reputation roll-up did not reach event ${through} in 5 runs`);
  }
}
