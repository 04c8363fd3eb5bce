import pg from "pg";
import { newId } from "../db/ids.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import type { AuditChange, AuditContext } from "./types.ts";

// Bounds on what a client controls (its user agent), so a hostile header cannot bloat the trail.
const MAX_USER_AGENT = 512;

/**
 * The one writer of `audit_events` (ADR 0062). Call it on the connection of the change's own transaction, so
 * a change and its audit row commit or roll back together: never from a response hook.
 */
export async function recordAuditEvent(db: Queryable, by: AuditContext, change: AuditChange): Promise<void> {
  await db.query(
    `insert into audit_events (id, account, actor_kind, actor, actor_label, action, target, detail, client_ip,
                               user_agent, actor_key_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      newId(),
      change.account,
      by.actor.kind,
      by.actor.id,
      by.actor.label ?? null,
      change.action,
      change.target ?? null,
      JSON.stringify(change.detail ?? {}),
      by.origin?.ip ?? null,
      by.origin?.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
      by.actor.keyId ?? null,
    ],
  );
}

/**
 * Runs a change and, when `by` is given, its audit row in one transaction: on a pool, a transaction of its
 * own; on a client, the caller's transaction (which must be open). `describe` turns the change's result into
 * what is recorded; undefined records nothing (the change changed nothing, e.g. a 404).
 */
export async function withAudit<T>(
  db: Pool | Queryable,
  by: AuditContext | undefined,
  change: (db: Queryable) => Promise<T>,
  describe: (result: T) => AuditChange | undefined,
): Promise<T> {
  if (!by) return change(db);
  const run = async (q: Queryable) => {
    const result = await change(q);
    const recorded = describe(result);
    if (recorded) await recordAuditEvent(q, by, recorded);
    return result;
  };
  return db instanceof pg.Pool ? withTransaction(db, run) : run(db);
}
