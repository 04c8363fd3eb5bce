import { isUuid } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, type AuditActorKind, type AuditEvent } from "./types.ts";

/** The audit trail's filters as a query string carries them (`GET /v1/audit`). */
export interface AuditListQuery {
  limit?: string | number | undefined;
  after?: string | undefined;
  action?: string | undefined;
  /** The actor's id: a key id (a person's key's too), a person's subject, `Kind/namespace/name`. */
  actor?: string | undefined;
  actorKind?: string | undefined;
  /** RFC 3339. */
  since?: string | undefined;
  until?: string | undefined;
}

export interface AuditFilter {
  action?: string | undefined;
  actor?: string | undefined;
  actorKind?: AuditActorKind | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Cursor: the id of the last entry of the previous page. */
  after?: string | undefined;
  limit: number;
}

const DEFAULT_LIMIT = 50;

function invalid(message: string): MailroomError {
  return new MailroomError("validation_error", message);
}

/** `since` and `until`, parsed (the schema already checked their form; core checks again for other callers). */
function timesOf(query: AuditListQuery): { since?: Date; until?: Date } {
  const times: { since?: Date; until?: Date } = {};
  for (const field of ["since", "until"] as const) {
    const value = query[field];
    if (value === undefined) continue;
    times[field] = new Date(value);
    if (Number.isNaN(times[field].getTime())) throw invalid(`${field}: an RFC 3339 time`);
  }
  return times;
}

/** The filter `listAuditEvents` takes, checked; throws `validation_error` naming the field. */
export function normalizeAuditFilter(query: AuditListQuery): AuditFilter {
  if (query.after !== undefined && !isUuid(query.after)) {
    throw invalid("after: the id of an audit entry from the previous page");
  }
  if (query.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(query.action)) {
    throw invalid(`action: one of ${AUDIT_ACTIONS.join(", ")}`);
  }
  if (query.actorKind !== undefined && !(AUDIT_ACTOR_KINDS as readonly string[]).includes(query.actorKind)) {
    throw invalid(`actorKind: one of ${AUDIT_ACTOR_KINDS.join(", ")}`);
  }
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid("limit: an integer from 1 to 100");
  return {
    limit,
    after: query.after,
    action: query.action,
    actor: query.actor,
    actorKind: query.actorKind as AuditActorKind | undefined,
    ...timesOf(query),
  };
}

interface AuditRow {
  id: string;
  at: Date;
  actor_kind: AuditActorKind;
  actor: string;
  actor_label: string | null;
  actor_key_id: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  client_ip: string | null;
  user_agent: string | null;
}

function toAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    at: row.at,
    actor: { kind: row.actor_kind, id: row.actor, label: row.actor_label, keyId: row.actor_key_id },
    action: row.action,
    target: row.target,
    detail: row.detail,
    origin: { ip: row.client_ip, userAgent: row.user_agent },
  };
}

/**
 * One page of an account's audit trail, newest first. Ids are UUIDv7 made when the row is written, so id order
 * is time order and the cursor is the last id seen, as the email log's.
 */
export async function listAuditEvents(
  db: Queryable,
  account: string,
  filter: AuditFilter,
): Promise<{ data: AuditEvent[]; hasMore: boolean }> {
  const { rows } = await db.query<AuditRow>(
    `select id, at, actor_kind, actor, actor_label, actor_key_id, action, target, detail, client_ip, user_agent
     from audit_events
     where account = $1
       and ($2::text is null or action = $2)
       -- A key id finds a person's changes made with that key too.
       and ($3::text is null or actor = $3 or actor_key_id = $3)
       and ($4::text is null or actor_kind = $4)
       and ($5::timestamptz is null or at >= $5)
       and ($6::timestamptz is null or at < $6)
       and ($7::uuid is null or id < $7)
     order by id desc
     limit $8`,
    [
      account,
      filter.action ?? null,
      filter.actor ?? null,
      filter.actorKind ?? null,
      filter.since ?? null,
      filter.until ?? null,
      filter.after ?? null,
      filter.limit + 1,
    ],
  );
  return { data: rows.slice(0, filter.limit).map(toAuditEvent), hasMore: rows.length > filter.limit };
}
