import { WEBHOOK_EVENT_TYPES } from "@mailroom/core/webhooks";

/**
 * The events Mailroom POSTs to webhook endpoints (OpenAPI 3.1 `webhooks`), signed per Standard Webhooks:
 * the body is `{type, timestamp, data}` (core/webhooks/sign.ts `webhookBody`), `data` as the outbox wrote it.
 */
const signatureHeaders = [
  ["webhook-id", "The event's id: the same on every retry, so a receiver can drop duplicates"],
  ["webhook-timestamp", "Unix seconds when this attempt was signed; refuse ones far from now"],
  [
    "webhook-signature",
    "Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint",
  ],
].map(([name, description]) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
}));

export const webhookComponents = {
  EmailEventData: {
    type: "object",
    required: ["emailId", "from", "to", "subject", "category"],
    additionalProperties: true,
    description: "The email, plus what the transition adds (e.g. `reason`, `smtpCode`)",
    properties: {
      emailId: { type: "string", format: "uuid" },
      from: { type: "string" },
      to: { type: "array", items: { type: "string" } },
      subject: { type: ["string", "null"] },
      category: { type: "string" },
      tags: { type: ["array", "null"], items: { type: "object" } },
    },
  },
  DomainEventData: {
    type: "object",
    required: ["domainId", "domain", "status"],
    additionalProperties: true,
    properties: {
      domainId: { type: "string", format: "uuid" },
      domain: { type: "string" },
      status: { type: "string", enum: ["verified", "failed"] },
      reason: { type: ["string", "null"] },
      failedRecords: { type: ["array", "null"], items: { type: "string" } },
    },
  },
  DkimRotationEventData: {
    type: "object",
    required: ["domainId", "domain"],
    additionalProperties: true,
    description:
      "A DKIM rotation step: `pending` selectors to publish (rotation_started), the `active` and `retiring` " +
      "ones with `withdrawAt` (rotated), the `withdrawn` ones (key_withdrawn); `compromised` on a key compromise",
    properties: {
      domainId: { type: "string", format: "uuid" },
      domain: { type: "string" },
      pending: { type: "array", items: { $ref: "#/components/schemas/DkimSelector" } },
      active: { type: "array", items: { $ref: "#/components/schemas/DkimSelector" } },
      retiring: { type: "array", items: { $ref: "#/components/schemas/DkimSelector" } },
      withdrawAt: { type: "string", format: "date-time" },
      withdrawn: { type: "array", items: { type: "string" } },
      compromised: { type: "boolean" },
    },
  },
  DomainCheckEventData: {
    type: "object",
    required: ["domainId", "domain", "check", "reason"],
    additionalProperties: true,
    description: "A compliance check of the domain that passed before and fails now",
    properties: {
      domainId: { type: "string", format: "uuid" },
      domain: { type: "string" },
      check: { type: "string", enum: ["SPF", "DKIM", "DMARC", "BounceMX", "ReverseDNS", "TLS"] },
      reason: { type: ["string", "null"] },
    },
  },
  AccountEventData: {
    type: "object",
    required: ["account", "by"],
    additionalProperties: true,
    description:
      "The account's sending was paused (by its reputation guard or by hand: `reason`) or resumed (`released`: " +
      "the held emails given back to delivery)",
    properties: {
      account: { type: "string" },
      by: { type: "string" },
      reason: { type: ["string", "null"] },
      released: { type: "integer" },
    },
  },
  DkimSelector: {
    type: "object",
    required: ["selector", "algorithm"],
    properties: { selector: { type: "string" }, algorithm: { type: "string", enum: ["rsa", "ed25519"] } },
  },
};

function eventOperation(type: (typeof WEBHOOK_EVENT_TYPES)[number]) {
  const kind = type.startsWith("email.")
    ? "Email"
    : type.startsWith("account.")
      ? "Account"
      : type.startsWith("domain.dkim_")
        ? "DkimRotation"
        : type === "domain.check_failed"
          ? "DomainCheck"
          : "Domain";
  const operationId = `on${type
    .split(".")
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join("")}`;
  return {
    post: {
      operationId,
      tags: ["Webhooks"],
      summary: `The ${type} event`,
      description: `Sent to every enabled endpoint subscribed to \`${type}\`; retried with backoff until a 2xx.`,
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["type", "timestamp", "data"],
              properties: {
                type: { type: "string", const: type },
                timestamp: { type: "string", format: "date-time" },
                data: { $ref: `#/components/schemas/${kind}EventData` },
              },
            },
          },
        },
      },
      responses: {
        "2XX": { description: "Received: the delivery succeeded" },
        default: {
          description:
            "Anything else (or no answer) is retried with backoff; a long failure disables the endpoint",
        },
      },
    },
  };
}

/** One entry per event type, as OpenAPI 3.1's top-level `webhooks`. */
export const webhookEvents = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [type, eventOperation(type)]),
);
