import {
  type AccountColumns,
  type AccountRecord,
  accountColumns,
  toAccountRecord,
} from "../accounts/index.ts";
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
const JOINED_COLUMNS = COLUMNS.split(",")
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

/** The key with its stored secret hash and its account's row, by id alone (for inspection; authentication
 * uses the next one, which reads a row back only for a matching secret). */
export async function findKeyForAuth(
  db: Queryable,
  keyId: string,
): Promise<{ key: ApiKeyRecord; account: AccountRecord; secretSha256: Buffer } | undefined> {
  const { rows } = await db.query<KeyRow & AccountColumns & { secret_sha256: Buffer }>(
    `select ${JOINED_COLUMNS}, secret_sha256, ${accountColumns("a")}
     from api_keys join accounts a using (account) where key_id = $1`,
    [keyId],
  );
  const row = rows[0];
  return row
    ? { key: toRecord(row), account: toAccountRecord(row), secretSha256: row.secret_sha256 }
    : undefined;
}

/**
 * The keys of several authentications, each only when its presented secret's hash matches (an unknown id and
 * a wrong secret then cost the same, no row read back for either; issue 26), in ONE statement: concurrent
 * checks share it (`createKeyChecker`). One result per lookup, in order.
 */
export async function findKeysBySecret(
  db: Queryable,
  lookups: ReadonlyArray<{ keyId: string; presentedSha256: Buffer }>,
): Promise<Array<{ key: ApiKeyRecord; account: AccountRecord; secretSha256: Buffer } | undefined>> {
  const { rows } = await db.query<KeyRow & AccountColumns & { n: string; secret_sha256: Buffer }>({
    // Named: planned once per connection, not on every message.
    name: "mailroom_keys_by_secret",
    text: `select req.n, ${JOINED_COLUMNS}, secret_sha256, ${accountColumns("a")}
     from unnest($1::text[], $2::bytea[]) with ordinality as req(key_id, presented, n)
     join api_keys on api_keys.key_id = req.key_id and api_keys.secret_sha256 = req.presented
     join accounts a on a.account = api_keys.account`,
    values: [lookups.map((l) => l.keyId), lookups.map((l) => l.presentedSha256)],
  });
  const byLookup = new Map(rows.map((row) => [Number(row.n) - 1, row]));
  return lookups.map((_, i) => {
    const row = byLookup.get(i);
    return row
      ? { key: toRecord(row), account: toAccountRecord(row), secretSha256: row.secret_sha256 }
      : undefined;
  });
}

/** One request to authenticate: the key id it names, the SHA-256 of the secret it presented, and its time. */
export interface AuthLookup {
  keyId: string;
  presentedSha256: Buffer;
  now: Date;
}

export interface AuthLookupResult {
  key: ApiKeyRecord;
  /** The key's account's row (settings and state), read by the same statement. */
  account: AccountRecord;
  secretSha256: Buffer;
  /** This request's position in each of its rate-limit windows (only when its secret matched an active key). */
  hits: Array<{ bucket: string; hits: number }>;
}

/**
 * The keys of several requests with their secret hashes and their accounts' rows, in ONE statement, counting
 * each request whose presented hash matches an active key against its key's and account's rate-limit
 * windows (the account's own limit, else the policy's; an
 * unauthenticated caller never spends a key's budget). Concurrent requests share this statement (see
 * `createRequestAuthenticator`); counters are upserted in bucket order, so two statements cannot deadlock.
 * Each request's hit count is its own place in the window: with c requests of a window in the statement and
 * H hits after it, they hold H-c+1 … H in request order, exactly as c separate statements would have.
 */
export async function findKeysForAuthCounting(
  db: Queryable,
  lookups: readonly AuthLookup[],
  policy: { perKey: number; perAccount: number },
): Promise<Array<AuthLookupResult | undefined>> {
  const { rows } = await db.query<
    KeyRow & AccountColumns & { n: string; secret_sha256: Buffer; hits: AuthLookupResult["hits"] }
  >({
    // Named: planned once per connection, not on every request.
    name: "mailroom_auth_counting",
    text: `with req as (
       select * from unnest($1::text[], $2::bytea[], $3::timestamptz[], $4::timestamptz[])
         with ordinality as t(key_id, presented, at, win, n)
     ), k as (
       select ${JOINED_COLUMNS}, secret_sha256, ${accountColumns("a")}
       from api_keys join accounts a using (account) where key_id in (select key_id from req)
     ), hit as (
       select req.n, b.bucket, req.win
       from req join k on k.key_id = req.key_id,
            lateral (values ('key:' || k.key_id, coalesce(k.rate_limit_per_second, $5)),
                            ('account:' || k.account, coalesce(k.acct_rate_limit_per_second, $6))) as b(bucket, lim)
       where k.secret_sha256 = req.presented and k.revoked_at is null and (k.expires_at is null or k.expires_at > req.at)
         and b.lim > 0
     ), counted as (
       insert into rate_limit_counters (bucket, window_start, hits)
       select bucket, win, count(*) from hit group by bucket, win order by bucket, win
       on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + excluded.hits
       returning bucket, window_start, hits
     ), placed as (
       select h.n, h.bucket,
              c.hits - count(*) over w + row_number() over (w order by h.n) as hits
       from hit h join counted c on c.bucket = h.bucket and c.window_start = h.win
       window w as (partition by h.bucket, h.win)
     )
     select req.n, k.*,
            coalesce((select json_agg(json_build_object('bucket', p.bucket, 'hits', p.hits)) from placed p
                      where p.n = req.n), '[]'::json) as hits
     -- Only a request whose secret matches gets its key back: an unknown id and a wrong secret then cost
     -- the same, no row to send and parse for either (issue 26: the row made a wrong secret ~50 µs slower).
     from req join k on k.key_id = req.key_id and k.secret_sha256 = req.presented`,
    values: [
      lookups.map((l) => l.keyId),
      lookups.map((l) => l.presentedSha256),
      lookups.map((l) => l.now),
      lookups.map((l) => new Date(Math.floor(l.now.getTime() / 1000) * 1000)),
      policy.perKey,
      policy.perAccount,
    ],
  });
  const byRequest = new Map(rows.map((row) => [Number(row.n) - 1, row]));
  return lookups.map((_, i) => {
    const row = byRequest.get(i);
    return row
      ? { key: toRecord(row), account: toAccountRecord(row), secretSha256: row.secret_sha256, hits: row.hits }
      : undefined;
  });
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
