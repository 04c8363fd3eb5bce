import type { TraceCarrier } from "../jobs/index.ts";

/** Every event type an endpoint can subscribe to (issue 5 item 7). */
export const WEBHOOK_EVENT_TYPES = [
  "email.scheduled",
  "email.queued",
  "email.delivered",
  "email.deferred",
  "email.bounced",
  "email.failed",
  "email.canceled",
  "email.complained",
  "domain.verified",
  "domain.failed",
  // DKIM rotation steps (core/src/domains/rotation): a new key to publish, signing switched, a key withdrawn.
  "domain.dkim_rotation_started",
  "domain.dkim_rotated",
  "domain.dkim_key_withdrawn",
  // A compliance check (core/src/domains/checks) went from pass to fail.
  "domain.check_failed",
  // The account's sending was paused (reputation guard or by hand) or resumed (core/src/accounts/pause.ts).
  "account.paused",
  "account.resumed",
] as const;

export type EndpointManager = "api" | "operator";
export type DeliveryState = "pending" | "succeeded" | "failed";

/** An endpoint as the API shows it: never with its secrets. */
export interface WebhookEndpoint {
  id: string;
  account: string;
  name: string | null;
  url: string;
  /** Subscribed types; empty means all. */
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  managedBy: EndpointManager;
  createdAt: Date;
  updatedAt: Date;
}

/** One event to write to the outbox. */
export interface OutboxEvent {
  account: string;
  type: string;
  data: Record<string, unknown>;
  /**
   * Events sharing a stream reach each endpoint in the order they were emitted. Defaults to
   * `email:<data.emailId>` or `domain:<data.domainId>`, else the event's own id (no ordering constraint).
   */
  stream?: string;
  /** Trace context of the change the event reports: its webhook POSTs continue that trace. */
  trace?: TraceCarrier | undefined;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface WebhookAttempt {
  attempt: number;
  at: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

/** An endpoint's most recent delivery attempt, whatever delivery it belonged to. */
export interface LastAttempt {
  deliveryId: string;
  eventId: string;
  eventType: string;
  at: Date;
  /** The receiver's HTTP status; null when no answer came (connection error, timeout, refused target). */
  statusCode: number | null;
  /** Why it failed when no status explains it; null on success. */
  error: string | null;
  /** A 2xx answer, the rule `completeAttempt` delivers by. */
  succeeded: boolean;
}

/** One ordered stream of an endpoint's deliveries (e.g. one email's events). */
export interface WebhookStream {
  endpointId: string;
  stream: string;
}
