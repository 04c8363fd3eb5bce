import type { AuditContext } from "../audit/types.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { COLUMNS, createKey, type KeyRow, toRecord } from "./store.ts";
import {
  type ApiKeyRecord,
  EXPIRY_CHOICES,
  isExpiryChoice,
  isScope,
  type KeyMode,
  type KeyState,
  type Scope,
} from "./types.ts";

/**
 * Key management through the API (`/v1/keys`, scope `keys`; issue 33 item 5, ADR 0069): an account's keys
 * listed, a key made by another key, within that key's power. Revocation is `revokeKey` with its guard
 * (revoke.ts), the same path as the CLI's and the operator's.
 */

/** Longest name a key made through the API may carry (the CLI's and the operator's are theirs to bound). */
export const MAX_KEY_NAME = 200;

export interface KeyListFilter {
  state?: KeyState | undefined;
  /** Cursor: the key id of the last key of the previous page (keys come newest first). */
  after?: string | undefined;
  limit: number;
}

/** One page of an account's keys, newest first, never a secret (none is stored) nor its hash. */
export async function listAccountKeys(
  db: Queryable,
  account: string,
  filter: KeyListFilter,
  now: Date = new Date(),
): Promise<{ data: ApiKeyRecord[]; hasMore: boolean }> {
  const { rows } = await db.query<KeyRow>(
    `select ${COLUMNS} from api_keys
     where account = $1
       and ($2::text is null or (created_at, key_id) <
            (select c.created_at, c.key_id from api_keys c where c.key_id = $2 and c.account = $1))
       and case $3::text
             when 'active' then revoked_at is null and (expires_at is null or expires_at > $4)
             when 'revoked' then revoked_at is not null
             when 'expired' then revoked_at is null and expires_at <= $4
             else true
           end
     order by created_at desc, key_id desc
     limit $5`,
    [account, filter.after ?? null, filter.state ?? null, now, filter.limit + 1],
  );
  return { data: rows.slice(0, filter.limit).map(toRecord), hasMore: rows.length > filter.limit };
}

export interface CreateKeyRequest {
  scopes: readonly string[];
  /** Default `never`, as the CLI's and an ApiKey resource's. */
  expires?: string | undefined;
  name?: string | null | undefined;
  /** Default: the caller's mode. */
  mode?: KeyMode | undefined;
}

/**
 * Creates a key of the caller's account for an API caller, who can give it no more than it holds itself
 * (ADR 0069): its scopes within the caller's (else `insufficient_scope`, naming the missing ones), a sandbox
 * caller makes only sandbox keys, and a caller with its own rate limit passes it on. The new key is a
 * machine's (no owner, even when a person made it; the audit row says who) and `managedBy: api`.
 * Returns the record and the full key, shown this once.
 */
export async function createKeyAs(
  pool: Pool,
  caller: ApiKeyRecord,
  request: CreateKeyRequest,
  by: AuditContext,
): Promise<{ key: ApiKeyRecord; fullKey: string }> {
  const scopes = [...new Set(request.scopes)];
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new MailroomError("validation_error", "scopes: at least one, each a scope of the spec's table");
  }
  const beyond = scopes.filter((scope) => !caller.scopes.includes(scope as Scope));
  if (beyond.length > 0) {
    throw new MailroomError(
      "insufficient_scope",
      `A key can give a new key only scopes it holds itself; this key lacks ${beyond.map((s) => `\`${s}\``).join(", ")}.`,
    );
  }
  const expires = request.expires ?? "never";
  if (!isExpiryChoice(expires))
    throw new MailroomError("validation_error", `expires: one of ${EXPIRY_CHOICES.join(", ")}`);
  const mode = request.mode ?? caller.mode;
  if (caller.mode === "sandbox" && mode !== "sandbox") {
    throw new MailroomError(
      "insufficient_scope",
      "A sandbox key can create only sandbox keys: its mail is captured, a live key's would leave.",
    );
  }
  if (request.name && request.name.length > MAX_KEY_NAME) {
    throw new MailroomError("validation_error", `name: at most ${MAX_KEY_NAME} characters`);
  }
  return createKey(pool, {
    account: caller.account,
    scopes: scopes.filter(isScope),
    expires,
    name: request.name ?? undefined,
    managedBy: "api",
    mode,
    rateLimitPerSecond: caller.rateLimitPerSecond ?? undefined,
    by,
  });
}
