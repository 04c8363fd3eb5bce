import type { Pool } from "@mailroom/core/db";
import type { Logger } from "@mailroom/core/telemetry";

export interface Heartbeat {
  /** Ids of this process's graphile-worker workers (filled as the pool creates them). */
  workerIds: Set<string>;
  stop(): Promise<void>;
}

/**
 * Crash recovery well inside a minute instead of graphile-worker's four-hour lock timeout. Every process
 * beats for its workers; every process also looks for workers whose beat is stale (their process died, e.g.
 * killed mid-delivery) and force-unlocks their jobs, so another worker retries them at once. An email caught
 * mid-handover is still `sending` and is claimed again; its stable Message-ID lets the receiver recognise a
 * repeat. Jobs locked by a worker that never beat at all are unlocked once their lock is older than the limit.
 */
export function startHeartbeat(
  pool: Pool,
  logger: Logger,
  options: { intervalMs: number; deadAfterMs: number },
): Heartbeat {
  const workerIds = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  const beat = async () => {
    if (workerIds.size > 0) {
      await pool.query(
        `insert into worker_heartbeats (worker_id, beat_at) select unnest($1::text[]), now()
         on conflict (worker_id) do update set beat_at = now()`,
        [[...workerIds]],
      );
    }
    const { rows } = await pool.query<{ worker_id: string }>(
      `select worker_id from worker_heartbeats where beat_at < now() - make_interval(secs => $1)
       union
       select distinct j.locked_by from graphile_worker._private_jobs j
       where j.locked_by is not null and j.locked_at < now() - make_interval(secs => $1)
         and not exists (select 1 from worker_heartbeats h where h.worker_id = j.locked_by)`,
      [options.deadAfterMs / 1000],
    );
    const dead = rows.map((r) => r.worker_id).filter((id) => !workerIds.has(id));
    if (dead.length === 0) return;
    await pool.query(`select graphile_worker.force_unlock_workers($1::text[])`, [dead]);
    await pool.query(`delete from worker_heartbeats where worker_id = any($1::text[])`, [dead]);
    logger.warn({ workers: dead }, "unlocked the jobs of workers that stopped beating");
  };
  const timer = setInterval(() => {
    running = beat().catch((error: unknown) => logger.warn({ err: error }, "heartbeat failed"));
  }, options.intervalMs);
  timer.unref();
  return {
    workerIds,
    stop: async () => {
      clearInterval(timer);
      await running;
      if (workerIds.size > 0) {
        await pool
          .query(`delete from worker_heartbeats where worker_id = any($1::text[])`, [[...workerIds]])
          .catch(() => {});
      }
    },
  };
}
