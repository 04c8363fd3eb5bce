/**
 * ApiKey: one Postgres key per resource, its full value only in the Secret.
 *
 * Drift rule (README "Operator"): a key deleted from Postgres behind the operator's back is re-issued (the
 * resource still declares it); a key revoked behind its back is reported Ready=False/KeyRevoked and NOT
 * re-issued, because revocation is a security decision that a reconcile must not undo. A Secret that lost
 * the key (deleted, edited) cannot be repaired, since only a hash is stored: a new key is issued into it and
 * the old one revoked, so no unreachable active key is left behind.
 */
import { withTransaction } from "@mailroom/core/db";
import { type ApiKeyRecord, createKey, listKeys, parseKey, revokeKey } from "@mailroom/core/keys";
import type { ApiKey } from "../../crds/index.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import {
  type ObjectRef,
  ownerReferenceFor,
  type ReconcileContext,
  type SecretData,
  secretConflict,
} from "../context.ts";
import { accountOf, type ReconcileOutcome, refOf, type StatusFields } from "../kind-controller.ts";
import { apiKeyFields, apiKeyReady, apiKeyRequeue } from "./status.ts";

/** The Secret receiving the key. */
export function apiKeySecretName(key: ApiKey): string {
  return key.spec.secretName ?? `${key.metadata.name}-api-key`;
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
      name: `${ref.namespace}/${ref.name}`,
      managedBy: "operator",
      now: ctx.now(),
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

/**
 * The Secret carries an ownerReference exactly while reclaimPolicy is Delete: with Retain the key outlives
 * the resource, so the Secret holding it must not be garbage-collected (foreground deletion would delete
 * it before the finalizer could let go of it).
 */
async function syncOwnerReference(ctx: ReconcileContext, key: ApiKey, ref: ObjectRef, secret: SecretData) {
  const wanted = ownerReferenceFor(ctx, ref, key.spec.reclaimPolicy);
  const has = secret.ownerUids.includes(ref.uid);
  if (wanted ? !has || secret.ownerUids.length > 1 : has) {
    await ctx.secrets.setOwnerReference(ref.namespace, apiKeySecretName(key), wanted);
  }
}

type Outcome = ReconcileOutcome<StatusFields<"ApiKey">>;

function outcomeFor(ctx: ReconcileContext, record: ApiKeyRecord): Outcome {
  const now = ctx.now();
  const ready = apiKeyReady(record, now);
  const requeueAfterMs = apiKeyRequeue(record, now);
  return {
    fields: apiKeyFields(record),
    ready,
    // A revoked key no longer matches a spec that declares a usable one; an expired one does (expiry is spec).
    synced: ready.reason === "KeyRevoked" ? notOk("KeyRevoked", ready.message) : ok("Synced"),
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  };
}

/** Converges Postgres and the Secret with one ApiKey resource. */
export async function reconcileApiKey(ctx: ReconcileContext, key: ApiKey): Promise<Outcome> {
  const ref = refOf(key);
  const account = accountOf(key);
  const secretName = apiKeySecretName(key);
  const secret = await ctx.secrets.read(account, secretName);
  const conflict = secretConflict(secretName, secret, ref);
  if (conflict) {
    return {
      fields: {},
      ready: notOk("SecretConflict", conflict),
      synced: notOk("SecretConflict", conflict),
    };
  }
  const binding = await getBinding(ctx.pool, "ApiKey", account, ref.name);
  // A binding of another uid was left by an earlier resource of this name whose finalizer never ran.
  const keyId = binding?.uid === ref.uid ? binding.targetId : null;
  if (!keyId) {
    const record = await issueKey(ctx, key);
    await ctx.events.record(ref, "Normal", "Created", `issued key ${record.keyId} into Secret ${secretName}`);
    return outcomeFor(ctx, record);
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
    return outcomeFor(ctx, reissued);
  }
  if (record.revokedAt) return outcomeFor(ctx, record);
  const held = secret ? parseKey(secret.data.apiKey ?? "") : undefined;
  if (secret && held?.keyId === keyId) {
    await syncOwnerReference(ctx, key, ref, secret);
    return outcomeFor(ctx, record);
  }
  const rotated = await issueKey(ctx, key);
  const revoked = await revokeKey(ctx.pool, keyId);
  await ctx.events.record(
    ref,
    "Warning",
    "Rotated",
    `Secret ${secretName} no longer held key ${keyId}; issued ${rotated.keyId} and revoked the old key` +
      ` (${revoked?.failedEmailIds.length ?? 0} unsent emails failed)`,
  );
  return outcomeFor(ctx, rotated);
}
