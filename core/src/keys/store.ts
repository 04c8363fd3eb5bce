import { withAudit } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { generateKey } from "./format.ts";
import {
  type ApiKeyRecord,
  type ExpiryChoice,
  expiryDate,
  type KeyManager,
  type KeyMode,
  type KeyOwner,
  type Scope,
} from "./types.ts";

export const COLUMNS = `key_id, account, name, scopes, managed_by, created_at, expires_at, revoked_at, last_used_at,
  rate_limit_per_second, mode, owner_issuer, owner_subject, owner_email, session_active_at,
  owner_checked_at, revoked_reason`;

// The same columns where a statement joins `accounts`, whose column names overlap.
export const JOINED_COLUMNS = COLUMNS.split(",")
  .map((column) => `api_keys.${column.trim()}`)
  .join(", ");

export interface KeyRow {
  key_id: string;
  account: string;
  name: string | null;
  scopes: Scope[];
  managed_by: KeyManager;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  rate_limit_per_second: number | null;
  mode: KeyMode;
  owner_issuer: string | null;
  owner_subject: string | null;
  owner_email: string | null;
  session_active_at: Date | null;
  owner_checked_at: Date | null;
  revoked_reason: string | null;
}

export function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    account: row.account,
    name: row.name,
    scopes: row.scopes,
    managedBy: row.managed_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    rateLimitPerSecond: row.rate_limit_per_second,
    mode: row.mode,
    owner:
      row.owner_issuer && row.owner_subject
        ? { issuer: row.owner_issuer, subject: row.owner_subject, email: row.owner_email }
        : null,
    sessionActiveAt: row.session_active_at,
    ownerCheckedAt: row.owner_checked_at,
    revokedReason: row.revoked_reason,
  };
}

export interface CreateKeyInput {
  account: string;
  scopes: readonly Scope[];
  expires: ExpiryChoice;
  name?: string | undefined;
  managedBy?: KeyManager;
  rateLimitPerSecond?: number | undefined;
  /** Default `live`. */
  mode?: KeyMode | undefined;
  /** A person's key (an OpenID Connect sign-in): who it belongs to; its session starts now. */
  owner?: KeyOwner | undefined;
  now?: Date;
  /** Who creates it: recorded in the audit trail in the same transaction (never the secret). */
  by?: AuditContext | undefined;
}

/** Creates a key and returns its record with the full key string, which exists only in this return value. */
export async function createKey(
  db: Pool | Queryable,
  input: CreateKeyInput,
): Promise<{ key: ApiKeyRecord; fullKey: string }> {
  return withAudit(
    db,
    input.by,
    (q) => insertKey(q, input),
    ({ key }) => ({
      account: key.account,
      action: "key.created",
      target: key.keyId,
      detail: { name: key.name, scopes: key.scopes, mode: key.mode, expiresAt: key.expiresAt },
    }),
  );
}

async function insertKey(
  db: Queryable,
  input: CreateKeyInput,
): Promise<{ key: ApiKeyRecord; fullKey: string }> {
  const generated = generateKey();
  const now = input.now ?? new Date();
  const { rows } = await db.query<KeyRow>(
    `insert into api_keys (key_id, account, name, secret_sha256, scopes, managed_by, created_at, expires_at,
                           rate_limit_per_second, mode, owner_issuer, owner_subject, owner_email,
                           session_active_at)
     values ($1, mailroom_ensure_account($2), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
             case when $12::text is null then null else $7::timestamptz end)
     returning ${COLUMNS}`,
    [
      generated.keyId,
      input.account,
      input.name ?? null,
      generated.secretSha256,
      [...new Set(input.scopes)],
      input.managedBy ?? "cli",
      now,
      expiryDate(input.expires, now),
      input.rateLimitPerSecond ?? null,
      input.mode ?? "live",
      input.owner?.issuer ?? null,
      input.owner?.subject ?? null,
      input.owner?.email ?? null,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("insert into api_keys returned no row");
  return { key: toRecord(row), fullKey: generated.fullKey };
}

/** Lists keys, newest first; optionally one account's. Never returns secrets (they are not stored). */
export async function listKeys(db: Queryable, filter: { account?: string } = {}): Promise<ApiKeyRecord[]> {
  const { rows } = await db.query<KeyRow>(
    `select ${COLUMNS} from api_keys where ($1::text is null or account = $1) order by created_at desc, key_id`,
    [filter.account ?? null],
  );
  return rows.map(toRecord);
}

export const LAST_USED_REFRESH_MS = 60 * 60 * 1000;

/**
 * Records use of a key at most about once an hour: callers skip it when the record they hold is fresh, and
 * the conditional UPDATE keeps concurrent replicas from writing more than once.
 */
export async function touchKeyLastUsed(db: Queryable, key: ApiKeyRecord, now: Date): Promise<boolean> {
  if (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < LAST_USED_REFRESH_MS) return false;
  const result = await db.query(
    `update api_keys set last_used_at = $2
     where key_id = $1 and (last_used_at is null or last_used_at < $2::timestamptz - interval '1 hour')`,
    [key.keyId, now],
  );
  return result.rowCount === 1;
}

/** Marks the key revoked. Returns undefined when no such key exists, the record when it is (now) revoked. */
export async function markKeyRevoked(client: PoolClient, keyId: string, reason?: string) {
  // A key revoked already keeps its first revocation's time and reason.
  const { rows } = await client.query<KeyRow>(
    `update api_keys
     set revoked_reason = case when revoked_at is null then $2 else revoked_reason end,
         revoked_at = coalesce(revoked_at, now())
     where key_id = $1 returning ${COLUMNS}`,
    [keyId, reason ?? null],
  );
  const row = rows[0];
  return row ? toRecord(row) : undefined;
}
