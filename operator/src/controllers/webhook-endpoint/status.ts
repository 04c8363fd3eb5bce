/**
 * WebhookEndpoint status: whether Mailroom delivers to the endpoint (and why not), and the outcome of its most
 * recent delivery attempt, from Postgres.
 */
import {
  type WebhookEndpoint as EndpointRecord,
  type LastAttempt,
  WEBHOOK_EVENT_TYPES,
} from "@mailroom/core/webhooks";
import { type ConditionState, notOk, ok } from "../conditions.ts";
import type { StatusFields } from "../kind-controller.ts";
import { toRfc3339 } from "../rfc3339.ts";

type LastDelivery = NonNullable<StatusFields<"WebhookEndpoint">["lastDelivery"]>;

const MAX_MESSAGE = 1024;

/** The reason core records for an endpoint disabled on request, by the spec or the API (core/src/webhooks). */
const DISABLED_BY_REQUEST = "disabled by request";
const MAX_REASON = 1024;

/** Disabled by Mailroom itself (a 410 Gone, days of failures), not by the spec. */
function isAutoDisabled(endpoint: EndpointRecord): boolean {
  return (
    !endpoint.enabled && endpoint.disabledReason !== null && endpoint.disabledReason !== DISABLED_BY_REQUEST
  );
}

/**
 * status.active and status.disabledReason, and Ready: an endpoint Mailroom delivers to, or one its spec disables;
 * an endpoint Mailroom disabled (AutoDisabled) is not.
 */
export function activityOf(endpoint: EndpointRecord): {
  fields: Pick<StatusFields<"WebhookEndpoint">, "active" | "disabledReason">;
  ready: ConditionState;
} {
  if (endpoint.enabled) return { fields: { active: true }, ready: ok("Active", `endpoint ${endpoint.id}`) };
  const reason = (endpoint.disabledReason ?? DISABLED_BY_REQUEST).slice(0, MAX_REASON);
  const ready = isAutoDisabled(endpoint)
    ? notOk("AutoDisabled", `Mailroom disabled the endpoint (${reason}); change the spec to enable it again`)
    : // What the spec asks for, so Ready (kstatus, Flux and Argo CD read a not-Ready resource as unfinished, and a
      // GitOps pipeline that disables an endpoint would wait forever); status.active says nothing is delivered.
      ok("Disabled", "spec.enabled is false: Mailroom delivers nothing to it");
  return { fields: { active: false, disabledReason: reason }, ready };
}

const isEventType = (type: string): type is LastDelivery["eventType"] & string =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

/** status.lastDelivery for an attempt; fields the schema cannot hold (an unknown type, a bogus status) are left out. */
export function lastDeliveryOf(attempt: LastAttempt): LastDelivery {
  const status = attempt.statusCode;
  const failure = attempt.succeeded
    ? undefined
    : (attempt.error ?? (status === null ? undefined : `HTTP ${status}`));
  return {
    attemptedAt: toRfc3339(attempt.at),
    outcome: attempt.succeeded ? "Succeeded" : "Failed",
    ...(isEventType(attempt.eventType) ? { eventType: attempt.eventType } : {}),
    ...(status !== null && status >= 100 && status <= 599 ? { httpStatus: status } : {}),
    ...(failure ? { message: failure.slice(0, MAX_MESSAGE) } : {}),
  };
}
