/**
 * Deleting a domain, and the selectors it leaves behind: resolvers may cache a deleted key's record for its
 * TTL and beyond, so a selector once published for a domain is never given to a new key of that domain.
 */
import { withAudit } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { storedName } from "./records.ts";

/**
 * Deletes a domain with its keys and records, and retires its keys' selectors (never used again for this
 * domain: resolvers may still cache the old records). Returns whether it existed. Releases any verified claim.
 * Throws `managed_by_operator` for a domain a SendingDomain declares unless `actor` is the operator.
 */
export async function deleteDomain(
  db: Queryable,
  account: string,
  name: string,
  options: { actor?: "api" | "operator"; by?: AuditContext | undefined } = {},
): Promise<boolean> {
  const actor = options.actor ?? "api";
  const gone = { account, action: "domain.deleted", target: storedName(name) ?? name } as const;
  return withAudit(
    db,
    options.by,
    (q) => deleteIn(q, account, name, actor),
    (deleted) => (deleted ? gone : undefined),
  );
}

async function deleteIn(db: Queryable, account: string, name: string, actor: string): Promise<boolean> {
  const { rows } = await db.query<{ deleted: boolean; managed_by: string | null }>(
    `with target as (
       select id, managed_by from domains where account = $1 and name = $2 for update
     ), gone as (
       delete from domains d using target t
        where d.id = t.id and (t.managed_by = 'api' or $3 = 'operator')
       returning d.id, d.account, d.name
     ), retired as (
       insert into retired_dkim_selectors (account, domain, selector)
       select g.account, g.name, k.selector from gone g join dkim_keys k on k.domain_id = g.id
       on conflict do nothing
     )
     select exists (select 1 from gone) as deleted, (select managed_by from target) as managed_by`,
    [account, storedName(name) ?? "", actor],
  );
  const row = rows[0];
  if (row?.managed_by === "operator" && !row.deleted) {
    throw new MailroomError(
      "managed_by_operator",
      `Domain ${name} is declared by a SendingDomain resource: delete the resource instead.`,
    );
  }
  return row?.deleted ?? false;
}

/** Throws `conflict` when one of `selectors` was used by a deleted key of this account's domain `name`. */
export async function refuseRetiredSelectors(
  db: Queryable,
  account: string,
  name: string,
  selectors: readonly string[],
): Promise<void> {
  const { rows } = await db.query<{ selector: string }>(
    `select selector from retired_dkim_selectors where account = $1 and domain = $2 and selector = any($3)`,
    [account, name, selectors],
  );
  if (rows[0]) {
    throw new MailroomError(
      "conflict",
      `DKIM selector "${rows[0].selector}" was used by a deleted key of ${name}: choose another selector.`,
    );
  }
}
