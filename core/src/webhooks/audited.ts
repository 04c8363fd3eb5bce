import { withAudit } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import {
  type ChangeOptions,
  type CreateEndpointInput,
  createEndpoint,
  deleteEndpoint,
  type EndpointPatch,
  rotateEndpointSecret,
  updateEndpoint,
} from "./store.ts";

/**
 * The endpoint changes people and resources make (the API, the operator), each with its audit row in the
 * same transaction (ADR 0062): on a pool, a transaction of its own; on a client, the caller's. Secrets and
 * signing material never go into the row.
 */
export function createEndpointAs(
  by: AuditContext,
  db: Pool | Queryable,
  input: CreateEndpointInput,
  options: ChangeOptions = {},
) {
  return withAudit(
    db,
    by,
    (q) => createEndpoint(q, input, options),
    ({ endpoint }) => ({
      account: input.account,
      action: "webhook.created",
      target: endpoint.id,
      detail: { url: endpoint.url, events: endpoint.events },
    }),
  );
}

/** `updateEndpoint`, audited: the row names the fields the patch set. */
export function updateEndpointAs(
  by: AuditContext,
  db: Pool | Queryable,
  target: { account: string; id: string },
  patch: EndpointPatch,
  options: ChangeOptions = {},
) {
  const fields = Object.keys(patch).filter((f) => f !== "keepAutoDisabled");
  return withAudit(
    db,
    by,
    (q) => updateEndpoint(q, target.account, target.id, patch, options),
    (endpoint) => ({
      account: target.account,
      action: "webhook.updated",
      target: endpoint.id,
      detail: { fields, url: endpoint.url, enabled: endpoint.enabled },
    }),
  );
}

/** `deleteEndpoint`, audited. */
export function deleteEndpointAs(
  by: AuditContext,
  db: Pool | Queryable,
  target: { account: string; id: string },
  options: ChangeOptions = {},
) {
  return withAudit(
    db,
    by,
    (q) => deleteEndpoint(q, target.account, target.id, options),
    () => ({ account: target.account, action: "webhook.deleted", target: target.id }),
  );
}

/** `rotateEndpointSecret`, audited: the row keeps when the previous secrets expire, never a secret. */
export function rotateEndpointSecretAs(
  by: AuditContext,
  db: Pool | Queryable,
  target: { account: string; id: string },
  options: Parameters<typeof rotateEndpointSecret>[3] = {},
) {
  return withAudit(
    db,
    by,
    (q) => rotateEndpointSecret(q, target.account, target.id, options),
    (rotated) => ({
      account: target.account,
      action: "webhook.secret_rotated",
      target: target.id,
      detail: { previousSecretsExpireAt: rotated.previousSecretsExpireAt.toISOString() },
    }),
  );
}
