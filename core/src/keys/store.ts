import type { PoolClient, Queryable } from "../db/pool.ts";
import { generateKey } from "./format.ts";
import { type ApiKeyRecord, type ExpiryChoice, expiryDate, type KeyManager, type Scope } from "./types.ts";

const COLUMNS = `key_id, account, name, scopes, managed_by, created_at, expires_at, revoked_at, last_used_at,
  rate_limit_per_second`;
const QUALIFIED_COLUMNS = COLUMNS.split(",")
  .map((column) => `k.${column.trim()}`)
  .join(", ");

interface KeyRow {
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
}

function toRecord(row: KeyRow): ApiKeyRecord {
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
  };
}

export interface CreateKeyInput {
  account: string;
  scopes: readonly Scope[];
  expires: ExpiryChoice;
  name?: string | undefined;
  managedBy?: KeyManager;
  rateLimitPerSecond?: number | undefined;
  now?: Date;
}

/** Creates a key and returns its record with the full key string, which exists only in this return value. */
export async function createKey(
  db: Queryable,
  input: CreateKeyInput,
): Promise<{ key: ApiKeyRecord; fullKey: string }> {
  const generated = generateKey();
  const now = input.now ?? new Date();
  const { rows } = await db.query<KeyRow>(
    `insert into api_keys (key_id, account, name, secret_sha256, scopes, managed_by, created_at, expires_at,
                           rate_limit_per_second)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
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

/** The key with its stored secret hash, for authentication. */
export async function findKeyForAuth(
  db: Queryable,
  keyId: string,
): Promise<{ key: ApiKeyRecord; secretSha256: Buffer } | undefined> {
  const { rows } = await db.query<KeyRow & { secret_sha256: Buffer }>(
    `select ${COLUMNS}, secret_sha256 from api_keys where key_id = $1`,
    [keyId],
  );
  const row = rows[0];
  return row ? { key: toRecord(row), secretSha256: row.secret_sha256 } : undefined;
}

/**
 * The key with its secret hash, counting the request against the key's and account's rate-limit windows in
 * the same statement when `presentedSha256` matches and the key is active (an unauthenticated caller never
 * spends a key's budget). One round trip for the API's authentication and rate limiting together.
 */
export async function findKeyForAuthCounting(
  db: Queryable,
  keyId: string,
  presentedSha256: Buffer,
  policy: { perKey: number; perAccount: number },
  now: Date,
): Promise<
  { key: ApiKeyRecord; secretSha256: Buffer; hits: Array<{ bucket: string; hits: number }> } | undefined
> {
  const { rows } = await db.query<
    KeyRow & { secret_sha256: Buffer; hits: Array<{ bucket: string; hits: number }> }
  >(
    `with k as (
       select ${COLUMNS}, secret_sha256 from api_keys where key_id = $1
     ), counted as (
       insert into rate_limit_counters (bucket, window_start, hits)
       select b.bucket, $4, 1
       from k, lateral (values ('key:' || k.key_id, coalesce(k.rate_limit_per_second, $5)),
                               ('account:' || k.account, $6)) as b(bucket, lim)
       where k.secret_sha256 = $2 and k.revoked_at is null and (k.expires_at is null or k.expires_at > $3)
         and b.lim > 0
       on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + 1
       returning bucket, hits
     )
     select k.*, coalesce((select json_agg(json_build_object('bucket', c.bucket, 'hits', c.hits)) from counted c),
                          '[]'::json) as hits
     from k`,
    [
      keyId,
      presentedSha256,
      now,
      new Date(Math.floor(now.getTime() / 1000) * 1000),
      policy.perKey,
      policy.perAccount,
    ],
  );
  const row = rows[0];
  return row ? { key: toRecord(row), secretSha256: row.secret_sha256, hits: row.hits } : undefined;
}

/**
 * Locks, for share, the key that sent an email (one statement), inside a delivery transaction: a concurrent
 * revoke waits for it, and vice versa. Undefined when the email does not exist.
 */
export async function lockKeyOfEmail(client: PoolClient, emailId: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<KeyRow>(
    `select ${QUALIFIED_COLUMNS}
     from emails e join api_keys k on k.key_id = e.api_key_id where e.id = $1 for share of k`,
    [emailId],
  );
  const row = rows[0];
  return row ? toRecord(row) : undefined;
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
export async function markKeyRevoked(client: PoolClient, keyId: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await client.query<KeyRow>(
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where key_id = $1 returning ${COLUMNS}`,
    [keyId],
  );
  const row = rows[0];
  return row ? toRecord(row) : undefined;
}
