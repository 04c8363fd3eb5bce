// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { getDelivery, getLastAttempt, listDeliveries, replayDelivery } from "./deliveries.ts";
export { type ClaimedDelivery, fanOutEvents } from "./dispatch.ts";
export {
  createEndpointAs,
  deleteEndpointAs,
  rotateEndpointSecretAs,
  updateEndpointAs,
} from "./audited.ts";
export { createWebhookDispatcher } from "./dispatcher.ts";
export { createEndpointAccounts } from "./endpoint-accounts.ts";
export { createWebhookHttpClient, type PostResult, type WebhookHttpClient } from "./post.ts";
export { purgeExpiredWebhookEvents } from "./retention.ts";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./schedule.ts";
export { createWebhookSigner, generateWebhookSecret, webhookBody } from "./sign.ts";
export { createSsrfGuard, type HostResolver, type SsrfGuard, WebhookTargetRefusedError } from "./ssrf.ts";
export {
  activeSecrets,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from "./store.ts";
export * from "./types.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { claimStreamHeads, completeAttempt } from "./dispatch.ts";
/** @internal */
export { emitEvents } from "./outbox.ts";
/** @internal */
export { createEndpoint, disableEndpoint, rotateEndpointSecret } from "./store.ts";
