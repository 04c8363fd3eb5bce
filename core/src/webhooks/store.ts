import { isIP } from "node:net";
import { v7 as uuidv7 } from "uuid";
import { isUuid } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { generateWebhookSecret } from "./sign.ts";
import {
  checkWebhookUrl,
  createSsrfGuard,
  isMetadataHost,
  type SsrfGuard,
  WebhookTargetRefusedError,
} from "./ssrf.ts";
import { type EndpointManager, WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from "./types.ts";

const COLUMNS = `id, account, name, url, event_types, description, enabled, disabled_reason, managed_by,
                 created_at, updated_at`;
/** How long the previous secrets keep signing after a rotation, by default. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

interface EndpointRow {
  id: string;
  account: string;
  name: string | null;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  managed_by: EndpointManager;
  created_at: Date;
  updated_at: Date;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    account: row.account,
    name: row.name,
    url: row.url,
    events: row.event_types,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    managedBy: row.managed_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Who asks for a change: the API may not change what the operator declared. */
export interface ChangeOptions {
  actor?: EndpointManager;
  /** Checks literal addresses in the URL at save time; names are checked again at each delivery. */
  ssrf?: SsrfGuard;
}

// In updateEndpoint's SET (old values): an enable ($7) that leaves a Mailroom-disabled endpoint as it is ($8).
const KEEP_AUTO_DISABLED = `($7 is true and $8 and not enabled and disabled_reason <> 'disabled by request')`;

// CTE tail: fails the pending deliveries of the endpoint in `updated` when it ends up disabled.
const FAIL_PENDING_OF_DISABLED = `failed as (
  update webhook_deliveries set state = 'failed', last_error = 'endpoint disabled', lease_until = null,
         updated_at = now()
  where endpoint_id in (select id from updated where not enabled) and state = 'pending'
)`;

const notFound = () => new MailroomError("not_found", "No webhook endpoint with this id.");

function validateUrl(url: string, guard: SsrfGuard): void {
  try {
    const host = checkWebhookUrl(url).hostname.replace(/^\[|\]$/g, "");
    // Only an IP literal or a metadata name can be judged now; other names are resolved and judged at each
    // delivery, since their DNS answers can change after saving.
    const refusal = isIP(host)
      ? guard.refusalOf(host)
      : isMetadataHost(host)
        ? `${host} is a metadata host`
        : undefined;
    if (refusal) throw new WebhookTargetRefusedError(refusal);
  } catch (error) {
    if (error instanceof WebhookTargetRefusedError) {
      throw new MailroomError("validation_error", `url: ${error.message}`);
    }
    throw error;
  }
}

function validateEvents(events: readonly string[]): void {
  const unknown = events.filter((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new MailroomError("validation_error", `events: unknown event type ${JSON.stringify(unknown[0])}`);
  }
}

export interface CreateEndpointInput {
  account: string;
  url: string;
  events?: readonly string[];
  description?: string | null;
  enabled?: boolean;
  managedBy?: EndpointManager;
  /** The operator's CR name; null for API-created endpoints. */
  name?: string | null;
  /** A secret to adopt (the operator's Secret); a new one is generated otherwise. */
  secret?: string;
}

/**
 * Creates an endpoint with its first signing secret. The secret exists in the return value and in its row;
 * no read path ever returns it again.
 */
export async function createEndpoint(
  db: Queryable,
  input: CreateEndpointInput,
  options: ChangeOptions = {},
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  validateUrl(input.url, options.ssrf ?? createSsrfGuard());
  validateEvents(input.events ?? []);
  const secret = input.secret ?? generateWebhookSecret();
  const enabled = input.enabled ?? true;
  // One statement, so an endpoint never exists without a secret.
  const { rows } = await db.query<EndpointRow>(
    `with endpoint as (
       insert into webhook_endpoints (id, account, name, url, event_types, description, enabled, disabled_reason,
                                      managed_by)
       values ($1, mailroom_ensure_account($2), $3, $4, $5, $6, $7, case when $7 then null else 'disabled by request' end,
               $8)
       returning ${COLUMNS}
     ), secret as (insert into webhook_secrets (endpoint_id, secret) select id, $9 from endpoint)
     select * from endpoint`,
    [
      uuidv7(),
      input.account,
      input.name ?? null,
      input.url,
      [...new Set(input.events ?? [])],
      input.description ?? null,
      enabled,
      input.managedBy ?? "api",
      secret,
    ],
  );
  const row = rows[0];
  if (!row) throw new Error("insert into webhook_endpoints returned no row");
  return { endpoint: toEndpoint(row), secret };
}

/** The account's endpoints, oldest first (an account has a handful, so no pagination). */
export async function listEndpoints(db: Queryable, account: string): Promise<WebhookEndpoint[]> {
  const { rows } = await db.query<EndpointRow>(
    `select ${COLUMNS} from webhook_endpoints where account = $1 order by created_at, id`,
    [account],
  );
  return rows.map(toEndpoint);
}

/** One endpoint of the account; another account's id is `not_found`, exactly like an unknown one. */
export async function getEndpoint(db: Queryable, account: string, id: string): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw notFound();
  const { rows } = await db.query<EndpointRow>(
    `select ${COLUMNS} from webhook_endpoints where account = $1 and id = $2`,
    [account, id],
  );
  const row = rows[0];
  if (!row) throw notFound();
  return toEndpoint(row);
}

async function getChangeable(db: Queryable, account: string, id: string, options: ChangeOptions) {
  const endpoint = await getEndpoint(db, account, id);
  if (endpoint.managedBy === "operator" && (options.actor ?? "api") !== "operator") {
    throw new MailroomError(
      "managed_by_operator",
      "This webhook endpoint is declared by a WebhookEndpoint resource; change it there.",
    );
  }
  return endpoint;
}

export interface EndpointPatch {
  url?: string;
  events?: readonly string[];
  description?: string | null;
  enabled?: boolean;
  /**
   * With `enabled: true`: leave an endpoint Mailroom disabled (a 410, days of failures) disabled. Decided on
   * the row as the update finds it, so a disable that commits while the caller was deciding is not undone.
   */
  keepAutoDisabled?: boolean;
}

/**
 * Changes an endpoint. Enabling a disabled one clears its disable reason and failure streak; asking for
 * `enabled: true` on one that is enabled keeps its streak (a resync must not reset it).
 */
export async function updateEndpoint(
  db: Queryable,
  account: string,
  id: string,
  patch: EndpointPatch,
  options: ChangeOptions = {},
): Promise<WebhookEndpoint> {
  await getChangeable(db, account, id, options);
  if (patch.url !== undefined) validateUrl(patch.url, options.ssrf ?? createSsrfGuard());
  if (patch.events !== undefined) validateEvents(patch.events);
  const { rows } = await db.query<EndpointRow>(
    `with updated as (
     update webhook_endpoints set
       url = coalesce($3, url),
       event_types = coalesce($4, event_types),
       description = case when $5 then $6 else description end,
       enabled = case when ${KEEP_AUTO_DISABLED} then enabled else coalesce($7, enabled) end,
       disabled_reason = case when ${KEEP_AUTO_DISABLED} then disabled_reason
                              when $7 is true then null when $7 is false then 'disabled by request'
                              else disabled_reason end,
       failing_since = case when $7 is true and not enabled and not ${KEEP_AUTO_DISABLED} then null
                            else failing_since end,
       updated_at = now()
     where account = $1 and id = $2
     returning ${COLUMNS}
     ), ${FAIL_PENDING_OF_DISABLED}
     select * from updated`,
    [
      account,
      id,
      patch.url ?? null,
      patch.events ? [...new Set(patch.events)] : null,
      patch.description !== undefined,
      patch.description ?? null,
      patch.enabled ?? null,
      patch.keepAutoDisabled ?? false,
    ],
  );
  const row = rows[0];
  if (!row) throw notFound();
  return toEndpoint(row);
}

/**
 * Disables an endpoint with a reason (a 410, or days of failures). Its pending deliveries fail with it, in the
 * same statement; they can be replayed once the endpoint is enabled again.
 */
export async function disableEndpoint(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `with updated as (
       update webhook_endpoints set enabled = false, disabled_reason = $2, updated_at = now() where id = $1
       returning id, enabled
     ), ${FAIL_PENDING_OF_DISABLED}
     select 1`,
    [id, reason],
  );
}

/** Deletes an endpoint with its secrets, deliveries and attempts. */
export async function deleteEndpoint(
  db: Queryable,
  account: string,
  id: string,
  options: ChangeOptions = {},
): Promise<void> {
  await getChangeable(db, account, id, options);
  await db.query(`delete from webhook_endpoints where account = $1 and id = $2`, [account, id]);
}

/**
 * Makes a new current secret. The previous ones keep signing for `overlapMs` (default 24 h), so a receiver
 * can switch at its own pace: each delivery meanwhile carries one signature per active secret.
 */
export async function rotateEndpointSecret(
  db: Queryable,
  account: string,
  id: string,
  options: ChangeOptions & { overlapMs?: number; now?: Date; secret?: string } = {},
): Promise<{ secret: string; previousSecretsExpireAt: Date }> {
  await getChangeable(db, account, id, options);
  const now = options.now ?? new Date();
  const expireAt = new Date(now.getTime() + (options.overlapMs ?? DEFAULT_ROTATION_OVERLAP_MS));
  const secret = options.secret ?? generateWebhookSecret();
  await db.query(
    `with expired as (
       update webhook_secrets set expires_at = least(coalesce(expires_at, $3), $3)
       where endpoint_id = $1 and (expires_at is null or expires_at > $4)
     )
     insert into webhook_secrets (endpoint_id, secret, created_at) values ($1, $2, $4)`,
    [id, secret, expireAt, now],
  );
  return { secret, previousSecretsExpireAt: expireAt };
}

/** The secrets that sign a delivery at `now`: the current one first, then those still in their overlap. */
export async function activeSecrets(db: Queryable, endpointId: string, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ secret: string }>(
    `select secret from webhook_secrets where endpoint_id = $1 and (expires_at is null or expires_at > $2)
     order by id desc`,
    [endpointId, now],
  );
  return rows.map((row) => row.secret);
}
