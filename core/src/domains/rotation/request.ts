import type { Queryable } from "../../db/pool.ts";
import { MailroomError } from "../../errors/index.ts";

/** The longest interval accepted: ten years (the column's check). 0 turns scheduled rotation off. */
export const MAX_ROTATION_INTERVAL_DAYS = 3650;
/** M3AAWG: rotate at least every six months. */
export const DEFAULT_ROTATION_INTERVAL_DAYS = 180;

/**
 * Sets a domain's scheduled rotation interval (days; 0: off) and has the rotation job look at it at once,
 * since a shorter interval may already be due. Returns whether anything changed.
 */
export async function setRotationInterval(db: Queryable, domainId: string, days: number): Promise<boolean> {
  if (!Number.isInteger(days) || days < 0 || days > MAX_ROTATION_INTERVAL_DAYS) {
    throw new MailroomError(
      "validation_error",
      `The DKIM rotation interval must be a whole number of days from 0 (off) to ${MAX_ROTATION_INTERVAL_DAYS}.`,
    );
  }
  const result = await db.query(
    `update domains set dkim_rotation_interval_days = $2, dkim_rotation_check_at = now()
     where id = $1 and dkim_rotation_interval_days <> $2`,
    [domainId, days],
  );
  return result.rowCount === 1;
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
