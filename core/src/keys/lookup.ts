import {
  type AccountColumns,
  type AccountRecord,
  accountColumns,
  toAccountRecord,
} from "../accounts/index.ts";
import type { Queryable } from "../db/pool.ts";
import { JOINED_COLUMNS, type KeyRow, toRecord } from "./store.ts";
import type { ApiKeyRecord } from "./types.ts";

// The reads that authenticate a presented key: with its account's row, in one statement each (ADR 0028).

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
