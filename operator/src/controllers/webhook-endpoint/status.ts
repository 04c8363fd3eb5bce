/** WebhookEndpoint status: the outcome of the endpoint's most recent delivery attempt, from Postgres. */
import { type LastAttempt, WEBHOOK_EVENT_TYPES } from "@mailroom/core/webhooks";
import type { StatusFields } from "../kind-controller.ts";

type LastDelivery = NonNullable<StatusFields<"WebhookEndpoint">["lastDelivery"]>;

const MAX_MESSAGE = 1024;

/** RFC 3339 at second precision, as Kubernetes writes times. */
const rfc3339 = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

const isEventType = (type: string): type is LastDelivery["eventType"] & string =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

/** status.lastDelivery for an attempt; fields the schema cannot hold (an unknown type, a bogus status) are left out. */
export function lastDeliveryOf(attempt: LastAttempt): LastDelivery {
  const status = attempt.statusCode;
  const failure = attempt.succeeded
    ? undefined
    : (attempt.error ?? (status === null ? undefined : `HTTP ${status}`));
  return {
    attemptedAt: rfc3339(attempt.at),
    outcome: attempt.succeeded ? "Succeeded" : "Failed",
    ...(isEventType(attempt.eventType) ? { eventType: attempt.eventType } : {}),
    ...(status !== null && status >= 100 && status <= 599 ? { httpStatus: status } : {}),
    ...(failure ? { message: failure.slice(0, MAX_MESSAGE) } : {}),
  };
}
