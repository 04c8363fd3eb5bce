/**
 * The ApiKey step that owns Synced: one Postgres key per resource, its full value only in the Secret.
 *
 * Drift rule (README "Operator"): a key deleted from Postgres behind the operator's back is re-issued (the
 * resource still declares it); a key revoked behind its back is reported KeyRevoked (Synced and Ready) and NOT
 * re-issued, because revocation is a security decision that a reconcile must not undo. A Secret that lost
 * the key (deleted, edited) cannot be repaired, since only a hash is stored: a new key is issued into it and
 * the old one revoked, so no unreachable active key is left behind. A Secret another resource (or no
 * operator) wrote ends the run: SecretConflict.
 */
import { withTransaction } from "@mailroom/core/db";
import { type ApiKeyRecord, createKey, keyState, listKeys, parseKey, revokeKey } from "@mailroom/core/keys";
import type { ApiKey } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import { ownerReferenceFor, type ReconcileContext, type SecretData, secretConflict } from "../context.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { apiKeySecretName, syncOwnerReference } from "./secret.ts";
import { apiKeyFields, apiKeyReady } from "./status.ts";

/** What the key step found, for the Ready step. */
export interface ApiKeyState {
  record?: ApiKeyRecord;
}

/**
 * Issues a key and writes it to the Secret inside one transaction: if the Secret cannot be written, the key
 * never exists, so there is never an active key nobody holds.
 */
async function issueKey(ctx: ReconcileContext, key: ApiKey): Promise<ApiKeyRecord> {
  const ref = refOf(key);
  return withTransaction(ctx.pool, async (client) => {
    const created = await createKey(client, {
      account: ref.namespace,
      scopes: key.spec.scopes,
      expires: key.spec.expiresIn ?? "never",
      mode: key.spec.mode ?? "live",
      name: `${ref.namespace}/${ref.name}`,
      managedBy: "operator",
      now: ctx.now(),
      by: auditByResource(ref),
    });
    await putBinding(client, {
      kind: "ApiKey",
      namespace: ref.namespace,
      name: ref.name,
      uid: ref.uid,
      targetId: created.key.keyId,
      claim: null,
    });
    await ctx.secrets.write(
      ref.namespace,
      apiKeySecretName(key),
      { apiKey: created.fullKey, keyId: created.key.keyId },
      { ref, ownerReference: ownerReferenceFor(ctx, ref, key.spec.reclaimPolicy) },
    );
    return created.key;
  });
}

/** Converges Postgres and the Secret with the resource; returns the key the resource now has. */
async function convergeKey(
  ctx: ReconcileContext,
  key: ApiKey,
  secret: SecretData | undefined,
): Promise<ApiKeyRecord> {
  const ref = refOf(key);
  const account = accountOf(key);
  const secretName = apiKeySecretName(key);
  const binding = await getBinding(ctx.pool, "ApiKey", account, ref.name);
  // A binding of another uid was left by an earlier resource of this name whose finalizer never ran.
  const keyId = binding?.uid === ref.uid ? binding.targetId : null;
  if (!keyId) {
    const record = await issueKey(ctx, key);
    await ctx.events.record(ref, "Normal", "Created", `issued key ${record.keyId} into Secret ${secretName}`);
    return record;
  }
  const record = (await listKeys(ctx.pool, { account })).find((k) => k.keyId === keyId);
  if (!record) {
    const reissued = await issueKey(ctx, key);
    await ctx.events.record(
      ref,
      "Warning",
      "Recreated",
      `key ${keyId} was deleted outside the operator; issued ${reissued.keyId}`,
    );
    return reissued;
  }
  if (record.revokedAt) return record;
  const held = secret ? parseKey(secret.data.apiKey ?? "") : undefined;
  if (secret && held?.keyId === keyId) {
    await syncOwnerReference(ctx, key, ref, secret);
    return record;
  }
  const rotated = await issueKey(ctx, key);
  const revoked = await revokeKey(ctx.pool, keyId, auditByResource(ref));
  await ctx.events.record(
    ref,
    "Warning",
    "Rotated",
    `Secret ${secretName} no longer held key ${keyId}; issued ${rotated.keyId} and revoked the old key` +
      ` (${revoked?.failedEmailIds.length ?? 0} unsent emails failed)`,
  );
  return rotated;
}

export const keyStep: Step<ApiKey, ApiKeyState, StatusFields<"ApiKey">> = {
  name: "key",
  condition: "Synced",
  async run(ctx, key, state) {
    const secretName = apiKeySecretName(key);
    const secret = await ctx.secrets.read(accountOf(key), secretName);
    const conflict = secretConflict(secretName, secret, refOf(key));
    if (conflict) return { next: "stop", condition: notOk("SecretConflict", conflict) };
    const record = await convergeKey(ctx, key, secret);
    state.record = record;
    // A revoked key no longer matches a spec that declares a usable one; an expired one does (expiry is spec).
    const condition =
      keyState(record, ctx.now()) === "revoked"
        ? notOk("KeyRevoked", apiKeyReady(record, ctx.now()).message)
        : ok("Synced");
    return { next: "continue", condition, fields: apiKeyFields(record) };
  },
};
