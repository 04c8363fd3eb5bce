import type { Pool, PoolClient, Queryable } from "./pool.ts";
import { isDatabaseUnavailable } from "./unavailable.ts";

/** Where a read ran: on the replica, or on the primary (no replica, one not fresh enough, or one away). */
export type ReadTarget = "replica" | "primary";

export interface ReadRouter {
  /**
   * Runs `read` (read-only statements) where it sees every write committed before it started: on the replica
   * when it has replayed the primary's WAL up to that point, else on the primary. A replica that is away
   * or cancels the statement (a recovery conflict) costs a second try on the primary, never an error.
   */
  read<T>(read: (db: Queryable) => Promise<T>): Promise<T>;
}

// 40001: a hot standby cancels a read that conflicts with the WAL it replays; the primary has no such conflict.
const RECOVERY_CONFLICT = "40001";

/**
 * Reads that can leave the primary (ADR 0032), routed by freshness: before a read, the primary's WAL flush
 * position is taken (one tiny statement, no table touched); the replica serves the read only if, on the same
 * connection, its replay position has reached it. Every commit that answered 2xx was flushed before that
 * position, so a read right after a write, by the same client or any other, sees it. With no replica
 * configured every read runs on the primary, as before.
 */
export function createReadRouter(options: {
  primary: Pool;
  replica?: Pool | undefined;
  /** Told where each read ran (a metric). */
  onRead?: (target: ReadTarget) => void;
}): ReadRouter {
  const { primary, replica } = options;
  const served = (target: ReadTarget) => options.onRead?.(target);
  const onPrimary = async <T>(read: (db: Queryable) => Promise<T>) => {
    const result = await read(primary);
    served("primary");
    return result;
  };
  if (!replica) return { read: onPrimary };
  return {
    async read(read) {
      const { rows } = await primary.query<{ lsn: string }>("select pg_current_wal_flush_lsn()::text as lsn");
      const target = rows[0]?.lsn;
      let client: PoolClient | undefined;
      try {
        client = await replica.connect();
        // A node not in recovery (NULL replay position) is a primary itself: it holds every commit.
        const fresh = await client.query<{ fresh: boolean }>(
          "select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true) as fresh",
          [target],
        );
        if (fresh.rows[0]?.fresh) {
          const result = await read(client);
          client.release();
          client = undefined;
          served("replica");
          return result;
        }
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!isDatabaseUnavailable(error) && code !== RECOVERY_CONFLICT) throw error;
        // The connection may be broken: it is destroyed, not returned to the pool.
        client?.release(error as Error);
        client = undefined;
      } finally {
        client?.release();
      }
      return onPrimary(read);
    },
  };
}
