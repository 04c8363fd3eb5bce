import { randomBytes } from "node:crypto";
import type { Pool, Queryable } from "@mailroom/core/db";
import { type TakenDelivery, takeReservedDeliveries } from "@mailroom/core/emails";
import {
  completeTakenJobs,
  failTakenJob,
  RESERVED_DELIVERY_LANE,
  unlockJobsNotHeld,
  withinShareAnnounced,
} from "@mailroom/core/jobs";
import type { Logger as PinoLogger } from "@mailroom/core/telemetry";
import type pg from "pg";
import { graphileLogger } from "../graphile-settings.ts";
import type { Lane } from "../lane.ts";
import type { Delivery } from "../tasks/deliver.ts";

/** graphile-worker's channel for new jobs; `mailroom_enqueue_deliver` announces jobs within the share there too. */
const JOBS_CHANNEL = "jobs:insert";
/** Waits before listening again after the listening connection was lost (the poll goes on meanwhile). */
const RELISTEN_MS = 1_000;

export interface ReservedLaneOptions {
  /** The lane's own connections: its take, its job completions and its listening connection. */
  pool: Pool;
  logger: PinoLogger;
  /** Deliveries at once (`worker.reservedConcurrency`). */
  slots: number;
  /** The delivery, shared with the delivery lane (one claim and record batcher). */
  delivery: Delivery;
  /** Fallback poll (a lost notification, a keyed job whose time came): graphile-worker's default, 2 s. */
  pollIntervalMs?: number | undefined;
}

/**
 * The reserved delivery lane's own loop (ADR 0075, in place of a graphile-worker runner for this lane since
 * ADR 0064): it listens on graphile-worker's channel, wakes only for announcements of jobs within their share,
 * and then takes as many jobs as it has free slots with `takeReservedDeliveries`, which locks them and claims
 * their emails in one round trip and one commit (graphile-worker's fetch and the delivery's claim were two of
 * each, the quiet tenant's largest cost under a flood). Each job is delivered with the claim it came with,
 * then completed (deleted) or, if its task threw, failed as graphile-worker fails a job. A take that filled
 * every free slot, or a wake-up heard during one, takes again as soon as a slot is free; a poll covers lost
 * notifications and keyed jobs that came due. Jobs are locked under the lane's one worker id, which the
 * heartbeat vouches for (`lockIds`) and announces as a live reserved lane (ADR 0074): a killed process's jobs
 * are unlocked by the other processes' heartbeats and run again, the claim taking the `sending` email again.
 * A database away costs this lane its takes until it answers, never a job; a completion or failure it could
 * not write is written again at the next poll, the job staying locked under the live id meanwhile.
 */
export async function startReservedLane(options: ReservedLaneOptions): Promise<Lane> {
  const { pool, slots, delivery } = options;
  const workerId = `mailroom-reserved-${randomBytes(9).toString("hex")}`;
  const log = options.logger.child({ lane: RESERVED_DELIVERY_LANE.name, workerId });
  const taskLogger = graphileLogger(log);
  let busy = 0;
  let taking = false;
  // A wake-up not yet served by a take: a notification, the poll, a take that filled every free slot.
  let wanted = true;
  let stopping = false;
  const running = new Set<Promise<void>>();
  // The listening connection (also the one the takes run on) and the timer that listens again after losing it.
  let listener: pg.PoolClient | undefined;
  let relisten: NodeJS.Timeout | undefined;
  // Jobs ended whose completion (null) or failure (its message) is still to be written.
  const unsettled = new Map<string, string | null>();
  // Jobs taken and not yet completed or failed in the database: the only ones locked under `workerId` rightly.
  const held = new Set<string>();
  // A take failed: if its commit went through and only its answer was lost, jobs are locked under our live id
  // that nobody runs. The next take first unlocks every job of ours not in `held`.
  let unsure = false;
  let settling: Promise<void> | undefined;

  const settle = (): Promise<void> => {
    settling ??= (async () => {
      try {
        while (unsettled.size > 0) {
          const batch = [...unsettled];
          const completed = batch.filter(([, message]) => message === null).map(([id]) => id);
          await completeTakenJobs(pool, completed);
          for (const id of completed) {
            unsettled.delete(id);
            held.delete(id);
          }
          for (const [id, message] of batch) {
            if (message === null) continue;
            await failTakenJob(pool, workerId, id, message);
            unsettled.delete(id);
            held.delete(id);
          }
        }
      } catch (error) {
        log.warn(
          { err: error, jobs: unsettled.size },
          "could not write the end of reserved jobs; retrying at the next poll",
        );
      } finally {
        settling = undefined;
      }
    })();
    return settling;
  };

  const run = (taken: TakenDelivery) => {
    busy += 1;
    held.add(taken.job.id);
    const job = delivery(taken.payload, taskLogger, taken.claimed).then(
      () => {
        unsettled.set(taken.job.id, null);
      },
      (error: unknown) => {
        log.error(
          { err: error, jobId: taken.job.id, attempts: taken.job.attempts },
          "reserved delivery failed",
        );
        unsettled.set(taken.job.id, error instanceof Error ? error.message : String(error));
      },
    );
    const tracked = job.finally(() => {
      busy -= 1;
      running.delete(tracked);
      void settle();
      pump();
    });
    running.add(tracked);
  };

  // A take, after unlocking what an earlier take may have locked without our knowing (only between takes: no
  // take is under way whose jobs are not in `held` yet).
  const take = async (db: Queryable, free: number) => {
    if (unsure) {
      const unlocked = await unlockJobsNotHeld(db, workerId, [...held]);
      unsure = false;
      if (unlocked > 0)
        log.warn({ jobs: unlocked }, "reserved lane: unlocked jobs a take locked whose answer was lost");
    }
    return takeReservedDeliveries(db, workerId, free);
  };

  const pump = (): void => {
    if (stopping || taking || !wanted) return;
    const free = slots - busy;
    if (free <= 0) return;
    wanted = false;
    taking = true;
    // On the listening connection while it lives: it is never closed for idleness as the pool's are, and the
    // backend that has just sent the announcement is the one that takes (one take at a time).
    take(listener ?? pool, free)
      .then(
        (taken) => {
          // Every free slot filled: more may be waiting, take again once a slot is free.
          if (taken.length === free) wanted = true;
          for (const t of taken) run(t);
        },
        // The next poll or announcement takes again: a database away is not hammered.
        (error: unknown) => {
          unsure = true;
          log.warn({ err: error }, "reserved lane: could not take jobs");
        },
      )
      .finally(() => {
        taking = false;
        pump();
      });
  };
  const wake = () => {
    wanted = true;
    pump();
  };

  const listen = async () => {
    const client = await pool.connect();
    const lost = (error: unknown) => {
      if (listener !== client) return;
      listener = undefined;
      client.removeAllListeners("notification");
      client.release(error instanceof Error ? error : new Error(String(error)));
      if (stopping) return;
      log.warn(
        { err: error },
        "reserved lane: lost its listening connection; polling until it listens again",
      );
      relisten = setTimeout(function retry() {
        listen().then(wake, (e: unknown) => {
          log.warn({ err: e }, "reserved lane: could not listen yet");
          if (!stopping) relisten = setTimeout(retry, RELISTEN_MS);
        });
      }, RELISTEN_MS);
    };
    client.on("error", lost);
    client.on("notification", (message) => {
      if (message.channel === JOBS_CHANNEL && withinShareAnnounced(message.payload) > 0) wake();
    });
    try {
      await client.query(`listen "${JOBS_CHANNEL}"`);
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    listener = client;
  };

  await listen();
  const poll = setInterval(() => {
    if (unsettled.size > 0) void settle();
    wake();
  }, options.pollIntervalMs ?? 2_000);
  poll.unref();
  wake();

  return {
    name: RESERVED_DELIVERY_LANE.name,
    isRunning: () => !stopping,
    lockIds: () => [workerId],
    stop: async () => {
      stopping = true;
      clearInterval(poll);
      clearTimeout(relisten);
      while (taking || running.size > 0) {
        await Promise.all(running);
        if (taking) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await settle();
      const client = listener;
      listener = undefined;
      client?.removeAllListeners("notification");
      // Closed, not returned: a connection still listening is no use to the pool's other users.
      client?.release(true);
    },
  };
}
