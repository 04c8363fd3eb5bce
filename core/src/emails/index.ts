// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { parseAddress } from "./address.ts";
export {
  type AttemptResult,
  type Claimed,
  createDeliveryStore,
  type TakenDelivery,
  takeReservedDeliveries,
} from "./delivery.ts";
export { getEmailAttachment, getEmailDetail } from "./detail.ts";
export { MAX_HEADER_VALUE_LENGTH, MAX_RECIPIENTS } from "./limits.ts";
export { normalizeEmailFilter } from "./filter.ts";
export { cancelEmail, listEmails, rescheduleEmail } from "./log.ts";
export { findSendingEmail, purgeIdempotencyKeys } from "./queries.ts";
export { purgeExpiredEmails } from "./retention.ts";
export { prepareTimelinePartitions } from "./timeline-partitions.ts";
export { MAX_SUBJECT_LENGTH, validateScheduledAt } from "./send-request.ts";
export { normalizeSubmittedMessage } from "./submitted-message.ts";
export * from "./types.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { type AcceptRequest, acceptEmails } from "./accept.ts";
/** @internal */
export { listEvents } from "./events.ts";
/** @internal */
export { createAcceptQueue } from "./group-commit.ts";
/** @internal */
export type { EmailFilter } from "./log.ts";
/** @internal */
export { normalizeSendRequest, type SendRequestBody } from "./send-request.ts";
