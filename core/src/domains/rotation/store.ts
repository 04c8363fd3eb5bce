import { randomUUID } from "node:crypto";
import type { Pool, PoolClient, Queryable } from "../../db/pool.ts";
import { withTransaction } from "../../db/pool.ts";
import { emitEvents } from "../../webhooks/outbox.ts";
import { encryptSecret } from "../crypto.ts";
import { dkimRecordName, dkimTxtValue, generateDkimKey, makeSelectors } from "../dkim.ts";
import { keyAssociatedData } from "../store.ts";
import type { DkimAlgorithm, RecordCheck } from "../types.ts";
import type { DkimKeyState, RotationKey, RotationStep } from "./decide.ts";

/** A domain's rotation facts, as the decider reads them. */
export interface RotationState {
  id: string;
  account: string;
  name: string;
  verified: boolean;
  intervalDays: number;
  request: { at: Date; compromised: boolean } | null;
  keys: (RotationKey & { publicKey: string })[];
}

interface KeyRow {
  id: string;
  selector: string;
  algorithm: DkimAlgorithm;
  state: DkimKeyState;
  public_key: string;
  created_at: Date;
  served_at: Date | null;
  activated_at: Date | null;
  withdraw_at: Date | null;
}

async function readState(db: Queryable, domainId: string, lock: boolean): Promise<RotationState | undefined> {
  const { rows } = await db.query<{
    account: string;
    name: string;
    status: string;
    dkim_rotation_interval_days: number;
    dkim_rotation_requested_at: Date | null;
    dkim_rotation_compromised: boolean;
  }>(
    `select account, name, status, dkim_rotation_interval_days, dkim_rotation_requested_at,
            dkim_rotation_compromised
     from domains where id = $1 ${lock ? "for update" : ""}`,
    [domainId],
  );
  const domain = rows[0];
  if (!domain) return undefined;
  const { rows: keys } = await db.query<KeyRow>(
    `select id, selector, algorithm, state, public_key, created_at, served_at, activated_at, withdraw_at
     from dkim_keys where domain_id = $1 order by created_at, selector`,
    [domainId],
  );
  return {
    id: domainId,
    account: domain.account,
    name: domain.name,
    verified: domain.status === "verified",
    intervalDays: domain.dkim_rotation_interval_days,
    request: domain.dkim_rotation_requested_at
      ? { at: domain.dkim_rotation_requested_at, compromised: domain.dkim_rotation_compromised }
      : null,
    keys: keys.map((k) => ({
      id: k.id,
      selector: k.selector,
      algorithm: k.algorithm,
      state: k.state,
      createdAt: k.created_at,
      servedAt: k.served_at,
      activatedAt: k.activated_at,
      withdrawAt: k.withdraw_at,
      publicKey: k.public_key,
    })),
  };
}

/** A domain's key set and rotation settings, or undefined when the domain is gone. */
export function loadRotationState(db: Queryable, domainId: string): Promise<RotationState | undefined> {
  return readState(db, domainId, false);
}

/**
 * Stores what a DNS look at the pending keys found: a key seen served keeps its first `served_at`, one not
 * served loses it (the settle time starts over). The record's own status shows the same verdict.
 */
export async function recordPendingLookups(
  pool: Pool,
  domainId: string,
  lookups: readonly { keyId: string; check: RecordCheck }[],
  now: Date,
): Promise<void> {
  if (lookups.length === 0) return;
  await withTransaction(pool, async (client) => {
    for (const { keyId, check } of lookups) {
      const served = check.status === "verified";
      await client.query(
        `update dkim_keys set served_at = case when $3 then coalesce(served_at, $4) else null end
         where id = $1 and domain_id = $2 and state = 'pending'`,
        [keyId, domainId, served, now],
      );
      await client.query(
        `update domain_dns_records set status = $3, reason = $4, last_checked_at = $5
         where domain_id = $1 and purpose = 'dkim' and name = $2`,
        [domainId, check.name, check.status, check.reason, now],
      );
    }
  });
}

/** Generates keys under fresh selectors (never one used before) and inserts them with their records. */
async function insertKeys(
  client: PoolClient,
  kek: Buffer,
  domain: RotationState,
  algorithms: readonly DkimAlgorithm[],
  state: "pending" | "active",
  now: Date,
): Promise<{ selector: string; algorithm: DkimAlgorithm }[]> {
  const used = new Set(domain.keys.map((k) => k.selector));
  let selectors = makeSelectors(algorithms, now);
  while ([...selectors.values()].some((s) => used.has(s))) selectors = makeSelectors(algorithms, now);
  const made: { selector: string; algorithm: DkimAlgorithm }[] = [];
  for (const algorithm of algorithms) {
    const key = await generateDkimKey(algorithm);
    const id = randomUUID();
    const selector = selectors.get(algorithm) ?? "";
    const encrypted = encryptSecret(kek, key.privateKeyDer, keyAssociatedData(id));
    key.privateKeyDer.fill(0);
    await client.query(
      `insert into dkim_keys (id, domain_id, selector, algorithm, public_key, private_key_encrypted, created_at,
                              state, activated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, case when $8 = 'active' then $7::timestamptz end)`,
      [id, domain.id, selector, algorithm, key.publicKey, encrypted, now, state],
    );
    // Only an active key decides verification; a pending one is published and checked, as advice.
    await client.query(
      `insert into domain_dns_records (domain_id, purpose, type, name, value, required)
       values ($1, 'dkim', 'TXT', $2, $3, $4)`,
      [
        domain.id,
        dkimRecordName(selector, domain.name),
        dkimTxtValue(algorithm, key.publicKey),
        state === "active",
      ],
    );
    made.push({ selector, algorithm });
  }
  return made;
}

async function deleteKeys(
  client: PoolClient,
  domain: RotationState,
  keyIds: readonly string[],
): Promise<string[]> {
  const { rows } = await client.query<{ selector: string }>(
    `delete from dkim_keys where domain_id = $1 and id = any($2) returning selector`,
    [domain.id, keyIds],
  );
  await client.query(
    `delete from domain_dns_records where domain_id = $1 and purpose = 'dkim' and name = any($2)`,
    [domain.id, rows.map((r) => dkimRecordName(r.selector, domain.name))],
  );
  return rows.map((r) => r.selector);
}

const selectorsOf = (keys: readonly RotationKey[], ids: readonly string[]) =>
  keys.filter((k) => ids.includes(k.id)).map((k) => ({ selector: k.selector, algorithm: k.algorithm }));

/** What a step changed, for logs, metrics and the caller's answer. */
export interface AppliedStep {
  kind: Exclude<RotationStep["kind"], "wait">;
  selectors: { selector: string; algorithm: DkimAlgorithm }[];
}

/**
 * Writes one decided step in one transaction with its webhook event (`domain.dkim_rotation_started`,
 * `domain.dkim_rotated`, `domain.dkim_key_withdrawn`). `isCurrent` re-checks, under the domain's row lock,
 * that the key set is still the one the step was decided on; when it is not, nothing is written.
 */
export async function applyRotationStep(
  pool: Pool,
  kek: Buffer,
  domainId: string,
  step: Exclude<RotationStep, { kind: "wait" }>,
  isCurrent: (state: RotationState) => boolean,
  now: Date,
): Promise<AppliedStep | undefined> {
  return withTransaction(pool, async (client) => {
    const state = await readState(client, domainId, true);
    if (!state || !isCurrent(state)) return undefined;
    const event = (type: string, data: Record<string, unknown>) =>
      emitEvents(client, [{ account: state.account, type, data: { domainId, domain: state.name, ...data } }]);
    const clearRequest = () =>
      client.query(
        `update domains set dkim_rotation_requested_at = null, dkim_rotation_compromised = false where id = $1`,
        [domainId],
      );
    switch (step.kind) {
      case "generate": {
        const made = await insertKeys(client, kek, state, step.algorithms, "pending", now);
        await clearRequest();
        await event("domain.dkim_rotation_started", { pending: made });
        return { kind: step.kind, selectors: made };
      }
      case "activate": {
        await client.query(
          `update dkim_keys set state = 'active', activated_at = $3 where domain_id = $1 and id = any($2)`,
          [domainId, step.keyIds, now],
        );
        await client.query(
          `update dkim_keys set state = 'retiring', withdraw_at = $3 where domain_id = $1 and id = any($2)`,
          [domainId, step.retireKeyIds, step.withdrawAt],
        );
        const activated = selectorsOf(state.keys, step.keyIds);
        const retired = selectorsOf(state.keys, step.retireKeyIds);
        await setRequired(client, state, activated, true);
        await setRequired(client, state, retired, false);
        await event("domain.dkim_rotated", {
          active: activated,
          retiring: retired,
          withdrawAt: step.withdrawAt,
        });
        return { kind: step.kind, selectors: activated };
      }
      case "withdraw": {
        const withdrawn = await deleteKeys(client, state, step.keyIds);
        await event("domain.dkim_key_withdrawn", { withdrawn, compromised: false });
        return { kind: step.kind, selectors: selectorsOf(state.keys, step.keyIds) };
      }
      case "replace": {
        const withdrawn = await deleteKeys(client, state, step.withdrawKeyIds);
        const made = await insertKeys(client, kek, state, step.algorithms, "active", now);
        await clearRequest();
        await event("domain.dkim_rotated", { active: made, retiring: [], compromised: true });
        await event("domain.dkim_key_withdrawn", { withdrawn, compromised: true });
        return { kind: step.kind, selectors: made };
      }
    }
  });
}

async function setRequired(
  client: PoolClient,
  domain: RotationState,
  keys: readonly { selector: string }[],
  required: boolean,
): Promise<void> {
  await client.query(
    `update domain_dns_records set required = $3 where domain_id = $1 and purpose = 'dkim' and name = any($2)`,
    [domain.id, keys.map((k) => dkimRecordName(k.selector, domain.name)), required],
  );
}

/** Sets when the rotation job looks at a domain next. */
export async function setRotationCheckAt(db: Queryable, domainId: string, at: Date): Promise<void> {
  await db.query(`update domains set dkim_rotation_check_at = $2 where id = $1`, [domainId, at]);
}

/**
 * Takes up to `limit` domains whose rotation check is due, pushing their next check `leaseMs` ahead so
 * that two workers never rotate the same domain at once; the job then sets the decided time.
 */
export async function claimDomainsDueForRotation(
  db: Queryable,
  options: { now: Date; limit: number; leaseMs: number },
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `update domains set dkim_rotation_check_at = $2
     where id in (select id from domains where dkim_rotation_check_at <= $1 order by dkim_rotation_check_at
                  limit $3 for update skip locked)
     returning id`,
    [options.now, new Date(options.now.getTime() + options.leaseMs), options.limit],
  );
  return rows.map((r) => r.id);
}
