import { withAudit } from "../../audit/record.ts";
import type { AuditContext } from "../../audit/types.ts";
import type { Pool, Queryable } from "../../db/pool.ts";
import { MailroomError } from "../../errors/index.ts";

/** Who asks, for the audit trail, and which domain (by account and name) the change is recorded against. */
export interface RotationAudit {
  by: AuditContext;
  account: string;
  domain: string;
}

/** The longest interval accepted: ten years (the column's check). 0 turns scheduled rotation off. */
export const MAX_ROTATION_INTERVAL_DAYS = 3650;
/** M3AAWG: rotate at least every six months. */
export const DEFAULT_ROTATION_INTERVAL_DAYS = 180;

/**
 * Sets a domain's scheduled rotation interval (days; 0: off) and has the rotation job look at it at once,
 * since a shorter interval may already be due. Returns whether anything changed.
 */
export async function setRotationInterval(
  db: Pool | Queryable,
  domainId: string,
  days: number,
  audit?: RotationAudit,
): Promise<boolean> {
  if (!Number.isInteger(days) || days < 0 || days > MAX_ROTATION_INTERVAL_DAYS) {
    throw new MailroomError(
      "validation_error",
      `The DKIM rotation interval must be a whole number of days from 0 (off) to ${MAX_ROTATION_INTERVAL_DAYS}.`,
    );
  }
  return withAudit(
    db,
    audit?.by,
    async (q) => {
      const result = await q.query(
        `update domains set dkim_rotation_interval_days = $2, dkim_rotation_check_at = now()
         where id = $1 and dkim_rotation_interval_days <> $2`,
        [domainId, days],
      );
      return result.rowCount === 1;
    },
    (changed) =>
      changed && audit
        ? {
            account: audit.account,
            action: "domain.updated",
            target: audit.domain,
            detail: { dkimRotationIntervalDays: days },
          }
        : undefined,
  );
}

/** How a rotation request ended. */
export type RotationRequestResult = "requested" | "already_rotating" | "already_handled";

/**
 * Asks for a rotation now (the API's `POST /v1/domains/{domain}/dkim/rotate`, the SendingDomain annotation):
 * the rotation job, or the caller through `rotateDomain`, then starts it. A rotation already under way (a key
 * waiting for DNS) absorbs an ordinary request; a compromise always goes ahead. `token` (the annotation's
 * value) makes a request count once: the same token again is `already_handled`.
 */
export async function requestRotation(
  db: Pool | Queryable,
  domainId: string,
  options: { compromised: boolean; token?: string; now: Date },
  audit?: RotationAudit,
): Promise<RotationRequestResult> {
  return withAudit(
    db,
    audit?.by,
    (q) => recordRequest(q, domainId, options),
    (result) =>
      result === "requested" && audit
        ? {
            account: audit.account,
            action: "domain.dkim_rotation_requested",
            target: audit.domain,
            detail: { compromised: options.compromised },
          }
        : undefined,
  );
}

async function recordRequest(
  db: Queryable,
  domainId: string,
  options: { compromised: boolean; token?: string; now: Date },
): Promise<RotationRequestResult> {
  const { rows } = await db.query<{ result: RotationRequestResult }>(
    `with d as (
       select id, dkim_rotation_token is not distinct from $4 and $4 is not null as handled,
              exists (select 1 from dkim_keys k where k.domain_id = domains.id and k.state = 'pending') as rotating
       from domains where id = $1 for update
     ), changed as (
       update domains set
         dkim_rotation_token = coalesce($4, domains.dkim_rotation_token),
         dkim_rotation_requested_at = case when d.rotating and not $2 then domains.dkim_rotation_requested_at
                                           else $3 end,
         dkim_rotation_compromised = domains.dkim_rotation_compromised or $2,
         dkim_rotation_check_at = $3
       from d where domains.id = d.id and not d.handled
       returning d.rotating
     )
     select case when (select handled from d) then 'already_handled'
                 when (select rotating from changed) and not $2 then 'already_rotating'
                 else 'requested' end as result`,
    [domainId, options.compromised, options.now, options.token ?? null],
  );
  return rows[0]?.result ?? "already_handled";
}
