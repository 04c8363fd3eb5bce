/**
 * What the OpenAPI document says of each operation beyond its route schema: a stable operationId (client
 * generators name methods after it), a tag, and the error statuses it can answer besides the ones every
 * authenticated route can (400, 401, 403, 429, 500, 503; 413 and 415 with a body). A route missing here
 * fails the OpenAPI test, so the document cannot silently fall behind the routes.
 */
export interface OperationDoc {
  operationId: string;
  tag: (typeof TAGS)[number]["name"];
  /** When the route's schema has none. */
  summary?: string;
  /** Statuses of errors particular to the operation. */
  errors: number[];
  /** Answers 204 with no body on success. */
  noContent?: boolean;
}

export const TAGS = [
  { name: "Sending", description: "Send one email or a batch (scope `send`)." },
  { name: "Emails", description: "The email log: read, cancel and reschedule (scope `send`)." },
  {
    name: "Stats",
    description: "Delivery figures over a period, counted as mail changes state (scope `send`).",
  },
  { name: "Templates", description: "Saved Handlebars templates, versioned (scope `templates`)." },
  {
    name: "Domains",
    description: "Sending domains, their DKIM keys and DNS verification (scope `domains`).",
  },
  { name: "Suppressions", description: "Addresses mail is no longer sent to (scope `send`)." },
  { name: "Webhooks", description: "Endpoints that receive signed events (scope `webhooks`)." },
  {
    name: "Keys",
    description:
      "The API key making the request (any valid key); the account's keys: list, create within the caller's " +
      "scopes, revoke by key id (scope `keys`, ADR 0069).",
  },
  {
    name: "Account",
    description:
      "The key's account: sending state, limits, quota usage and reputation (any valid key); resume (scope " +
      "`domains`).",
  },
  {
    name: "Audit",
    description: "Who changed what in the account, when and from where (scope `audit`, ADR 0062).",
  },
  {
    name: "Dev inbox",
    description:
      "Mail a local run (`mailroom run`) captured instead of delivering (scope `send`); absent elsewhere.",
  },
] as const;

export const OPERATIONS: Record<string, OperationDoc> = {
  "POST /v1/send": { operationId: "sendEmail", tag: "Sending", errors: [404, 422] },
  "POST /v1/send/batch": { operationId: "sendBatch", tag: "Sending", errors: [404, 422] },
  "GET /v1/emails": { operationId: "listEmails", tag: "Emails", errors: [] },
  "GET /v1/emails/:id": { operationId: "getEmail", tag: "Emails", errors: [404] },
  "PATCH /v1/emails/:id": { operationId: "rescheduleEmail", tag: "Emails", errors: [404, 409] },
  "POST /v1/emails/:id/cancel": { operationId: "cancelEmail", tag: "Emails", errors: [404, 409] },
  "GET /v1/stats": { operationId: "getStats", tag: "Stats", errors: [] },
  "GET /v1/stats/transit": { operationId: "getTransit", tag: "Stats", errors: [] },
  "GET /v1/emails/:id/attachments/:index": {
    operationId: "getEmailAttachment",
    tag: "Emails",
    errors: [404],
  },
  "GET /v1/emails/:id/raw": { operationId: "getEmailRaw", tag: "Emails", errors: [404] },
  "POST /v1/templates": {
    operationId: "createTemplate",
    summary: "Create a template (version 1)",
    tag: "Templates",
    errors: [409],
  },
  "GET /v1/templates": {
    operationId: "listTemplates",
    summary: "List the account's templates",
    tag: "Templates",
    errors: [],
  },
  "GET /v1/templates/:id": {
    operationId: "getTemplate",
    summary: "Read a template with its current version",
    tag: "Templates",
    errors: [404],
  },
  "PATCH /v1/templates/:id": {
    operationId: "updateTemplate",
    summary: "Change a template; a content change makes a new version",
    tag: "Templates",
    errors: [404, 409],
  },
  "DELETE /v1/templates/:id": {
    operationId: "deleteTemplate",
    summary: "Delete a template and all its versions",
    tag: "Templates",
    errors: [404, 409],
    noContent: true,
  },
  "GET /v1/templates/:id/versions/:version": {
    operationId: "getTemplateVersion",
    summary: "Read one stored version of a template",
    tag: "Templates",
    errors: [404],
  },
  "POST /v1/templates/:id/render": {
    operationId: "renderTemplate",
    summary: "Render a template with variables, without sending",
    tag: "Templates",
    errors: [404, 422],
  },
  "POST /v1/domains": { operationId: "createDomain", tag: "Domains", errors: [409] },
  "GET /v1/domains": { operationId: "listDomains", tag: "Domains", errors: [] },
  "GET /v1/domains/:domain": { operationId: "getDomain", tag: "Domains", errors: [404] },
  "DELETE /v1/domains/:domain": {
    operationId: "deleteDomain",
    tag: "Domains",
    errors: [404, 409],
    noContent: true,
  },
  "POST /v1/domains/:domain/verify": { operationId: "verifyDomain", tag: "Domains", errors: [404, 409] },
  "PATCH /v1/domains/:domain": { operationId: "updateDomain", tag: "Domains", errors: [404] },
  "POST /v1/domains/:domain/dkim/rotate": {
    operationId: "rotateDomainDkim",
    tag: "Domains",
    errors: [404, 409, 422],
  },
  "GET /v1/domains/:domain/dmarc": { operationId: "getDomainDmarc", tag: "Domains", errors: [404] },
  "GET /v1/key": { operationId: "getCallingKey", tag: "Keys", errors: [] },
  "GET /v1/keys": { operationId: "listKeys", tag: "Keys", errors: [] },
  "POST /v1/keys": { operationId: "createKey", tag: "Keys", errors: [] },
  "POST /v1/keys/:keyId/revoke": { operationId: "revokeKey", tag: "Keys", errors: [404, 409] },
  "GET /v1/audit": { operationId: "listAuditEvents", tag: "Audit", errors: [] },
  "GET /v1/audit/actions": { operationId: "listAuditActions", tag: "Audit", errors: [] },
  "GET /v1/account": { operationId: "getAccount", tag: "Account", errors: [] },
  "POST /v1/account/resume": { operationId: "resumeAccount", tag: "Account", errors: [409] },
  "GET /v1/suppressions": { operationId: "listSuppressions", tag: "Suppressions", errors: [] },
  "POST /v1/suppressions": {
    operationId: "addSuppression",
    summary: "Suppress an address by hand (reason `manual`)",
    tag: "Suppressions",
    errors: [],
  },
  "GET /v1/suppressions/:address": { operationId: "getSuppression", tag: "Suppressions", errors: [404] },
  "DELETE /v1/suppressions/:address": {
    operationId: "deleteSuppression",
    tag: "Suppressions",
    errors: [404],
    noContent: true,
  },
  "POST /v1/webhooks": {
    operationId: "createWebhook",
    summary: "Add a webhook endpoint; its signing secret is shown once",
    tag: "Webhooks",
    errors: [],
  },
  "GET /v1/webhooks": {
    operationId: "listWebhooks",
    summary: "List the account's webhook endpoints",
    tag: "Webhooks",
    errors: [],
  },
  "GET /v1/webhooks/event-types": {
    operationId: "listWebhookEventTypes",
    summary: "List the event types an endpoint can subscribe to",
    tag: "Webhooks",
    errors: [],
  },
  "GET /v1/webhooks/:id": {
    operationId: "getWebhook",
    summary: "Read a webhook endpoint",
    tag: "Webhooks",
    errors: [404],
  },
  "PATCH /v1/webhooks/:id": {
    operationId: "updateWebhook",
    summary: "Change a webhook endpoint's URL, events, description or state",
    tag: "Webhooks",
    errors: [404, 409],
  },
  "DELETE /v1/webhooks/:id": {
    operationId: "deleteWebhook",
    summary: "Delete a webhook endpoint",
    tag: "Webhooks",
    errors: [404, 409],
    noContent: true,
  },
  "POST /v1/webhooks/:id/rotate-secret": {
    operationId: "rotateWebhookSecret",
    summary: "Make a new signing secret; the old ones keep signing for an overlap",
    tag: "Webhooks",
    errors: [404, 409],
  },
  "GET /v1/webhooks/:id/deliveries": {
    operationId: "listWebhookDeliveries",
    summary: "List an endpoint's deliveries, newest first",
    tag: "Webhooks",
    errors: [404],
  },
  "GET /v1/webhooks/:id/deliveries/:deliveryId": {
    operationId: "getWebhookDelivery",
    summary: "Read one delivery with its attempts",
    tag: "Webhooks",
    errors: [404],
  },
  "POST /v1/webhooks/:id/deliveries/:deliveryId/replay": {
    operationId: "replayWebhookDelivery",
    summary: "Deliver an event again",
    tag: "Webhooks",
    errors: [404, 409],
  },
  "GET /v1/dev-inbox/messages": { operationId: "listDevInboxMessages", tag: "Dev inbox", errors: [] },
  "DELETE /v1/dev-inbox/messages": {
    operationId: "clearDevInbox",
    tag: "Dev inbox",
    errors: [],
    noContent: true,
  },
  "GET /v1/dev-inbox/chaos": { operationId: "getDevInboxChaos", tag: "Dev inbox", errors: [] },
  "PUT /v1/dev-inbox/chaos": { operationId: "putDevInboxChaos", tag: "Dev inbox", errors: [] },
  "GET /v1/dev-inbox/messages/:id": { operationId: "getDevInboxMessage", tag: "Dev inbox", errors: [404] },
  "GET /v1/dev-inbox/messages/:id/raw": {
    operationId: "getDevInboxMessageRaw",
    tag: "Dev inbox",
    errors: [404],
  },
  "GET /v1/dev-inbox/messages/:id/attachments/:index": {
    operationId: "getDevInboxAttachment",
    tag: "Dev inbox",
    errors: [404],
  },
};
