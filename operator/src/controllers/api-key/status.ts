/** ApiKey status: the public facts of the key (never the secret) and what its state means for Ready. */
import { type ApiKeyRecord, keyState } from "@mailroom/core/keys";
import { type ConditionState, notOk, ok } from "../conditions.ts";
import type { StatusFields } from "../kind-controller.ts";
import { toRfc3339 } from "../rfc3339.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** keyId, expiresAt and lastUsedAt as the CRD declares them. */
export function apiKeyFields(record: ApiKeyRecord): StatusFields<"ApiKey"> {
  return {
    keyId: record.keyId,
    ...(record.expiresAt ? { expiresAt: toRfc3339(record.expiresAt) } : {}),
    ...(record.lastUsedAt ? { lastUsedAt: toRfc3339(record.lastUsedAt) } : {}),
  };
}

/** Ready follows the key's state: only an active key is usable. */
export function apiKeyReady(record: ApiKeyRecord, now: Date): ConditionState {
  switch (keyState(record, now)) {
    case "active":
      return ok("KeyActive", `key ${record.keyId} is active`);
    case "expired":
      return notOk("KeyExpired", `key ${record.keyId} expired at ${toRfc3339(record.expiresAt ?? now)}`);
    case "revoked":
      return notOk(
        "KeyRevoked",
        `key ${record.keyId} was revoked outside the operator; delete and re-create the ApiKey to issue a new key`,
      );
  }
}

/** Look again when the key expires, so Ready turns False on time; at most daily (resync covers the rest). */
export function apiKeyRequeue(record: ApiKeyRecord, now: Date): number | undefined {
  if (!record.expiresAt || keyState(record, now) !== "active") return undefined;
  return Math.min(Math.max(record.expiresAt.getTime() - now.getTime(), 1000), DAY_MS);
}
