export { getDelivery, getLastAttempt, listDeliveries, replayDelivery } from "./deliveries.ts";
export {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimStreamHead,
  claimStreamHeads,
  completeAttempt,
  type DeliveredAttempt,
  fanOutEvents,
  isDelivered,
  recordSuccesses,
  type StreamClaim,
} from "./dispatch.ts";
export {
  createWebhookDispatcher,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from "./dispatcher.ts";
export { createEndpointAccounts } from "./endpoint-accounts.ts";
export { emitEvents } from "./outbox.ts";
export {
  createWebhookHttpClient,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type PostResult,
  type WebhookHttpClient,
} from "./post.ts";
export { purgeExpiredWebhookEvents } from "./retention.ts";
export {
  DEFAULT_RETRY_POLICY,
  DEFAULT_RETRY_SCHEDULE_MS,
  type FailurePlan,
  parseRetryAfter,
  planAfterFailure,
  type RetryPolicy,
} from "./schedule.ts";
export {
  createWebhookSigner,
  decodeWebhookSecret,
  generateWebhookSecret,
  SECRET_PREFIX,
  type SignedHeaders,
  type WebhookSigner,
  webhookBody,
} from "./sign.ts";
export {
  checkWebhookUrl,
  createSsrfGuard,
  type DeliveryTarget,
  type HostResolver,
  isMetadataHost,
  type ResolvedAddress,
  type SsrfGuard,
  type SsrfPolicy,
  WebhookTargetRefusedError,
} from "./ssrf.ts";
export {
  activeSecrets,
  type ChangeOptions,
  type CreateEndpointInput,
  createEndpoint,
  DEFAULT_ROTATION_OVERLAP_MS,
  deleteEndpoint,
  disableEndpoint,
  type EndpointPatch,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from "./store.ts";
export * from "./types.ts";
