import type { Pool } from "@mailroom/core/db";
import type { Logger } from "@mailroom/core/telemetry";

export interface Heartbeat {
  /**
   * Lock ids of a runner of this process that ended: no longer beaten for, and their jobs unlocked at once
   * (or as soon as the database answers again), instead of after `deadAfterMs`.
   */
  release(lockIds: readonly string[]): void;
  /** Beats now, not at the next interval: the lanes just started are vouched for (and a reserved one counts). */
  beatNow(): void;
  /** Stops beating and forgets `lockIds` (a clean shutdown's runners: nothing of theirs is left locked). */
  stop(lockIds: readonly string[]): Promise<void>;
}

/**
 * Crash recovery well inside a minute instead of graphile-worker's four-hour lock timeout. Every process
 * beats for the lock ids of its live runners only (`liveIds`), so a runner that ended stops vouching for its
 * jobs even though its process lives on; every process also looks for lock ids whose beat is stale (their
 * process died, e.g. killed mid-delivery) and force-unlocks their jobs, so another worker retries them at
 * once. An email caught mid-handover is still `sending` and is claimed again; its stable Message-ID lets the
 * receiver recognise a repeat. Jobs locked by ids that never beat at all are unlocked once their lock is older
 * than the limit.
 */
export function startHeartbeat(
  pool: Pool,
  logger: Logger,
  options: {
    intervalMs: number;
    deadAfterMs: number;
    liveIds: () => readonly string[];
    /**
     * Those of `liveIds` that are a reserved delivery lane's: beaten with `reserved_until` two beats ahead, so
     * that `mailroom_enqueue_deliver` adds jobs within their share for that lane only while it lives (ADR 0074).
     */
    reservedIds?: () => readonly string[];
  },
): Heartbeat {
  const released = new Set<string>();
  let running: Promise<void> | undefined;
  const unlock = async (ids: string[]) => {
    await pool.query(`select graphile_worker.force_unlock_workers($1::text[])`, [ids]);
    await pool.query(`delete from worker_heartbeats where worker_id = any($1::text[])`, [ids]);
  };
  const beat = async () => {
    if (released.size > 0) {
      const ids = [...released];
      await unlock(ids);
      for (const id of ids) released.delete(id);
      logger.warn({ workers: ids }, "unlocked the jobs of this process's runner that ended");
    }
    const live = options.liveIds();
    if (live.length > 0) {
      await pool.query(
        `insert into worker_heartbeats (worker_id, beat_at, reserved_until)
         select id, now(), case when id = any($2::text[]) then now() + make_interval(secs => $3) end
         from unnest($1::text[]) as id
         on conflict (worker_id) do update set beat_at = now(), reserved_until = excluded.reserved_until`,
        [live, options.reservedIds?.() ?? [], (2 * options.intervalMs) / 1000],
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
    const dead = rows.map((r) => r.worker_id).filter((id) => !live.includes(id));
    if (dead.length === 0) return;
    await unlock(dead);
    logger.warn({ workers: dead }, "unlocked the jobs of workers that stopped beating");
  };
  // One beat at a time: against a database that does not answer, beats would otherwise pile up.
  const tick = () => {
    running ??= beat()
      .catch((error: unknown) => logger.warn({ err: error }, "heartbeat failed"))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    release: (lockIds) => {
      for (const id of lockIds) released.add(id);
      tick();
    },
    beatNow: tick,
    stop: async (lockIds) => {
      clearInterval(timer);
      await running;
      if (lockIds.length > 0) {
        await pool
          .query(`delete from worker_heartbeats where worker_id = any($1::text[])`, [lockIds])
          .catch(() => {});
      }
    },
  };
}
