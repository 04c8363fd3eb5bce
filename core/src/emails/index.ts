export { type AcceptOptions, type AcceptRequest, acceptEmails } from "./accept.ts";
export { formatMailbox, type Mailbox, parseAddress, parseMailbox } from "./address.ts";
export {
  type AttemptResult,
  type AttemptToRecord,
  type Claimed,
  claimEmails,
  claimForDelivery,
  createDeliveryStore,
  type DeliveryStore,
  type RecipientOutcome,
  type RetryPolicy,
  recordAttempt,
  recordAttempts,
  retryDelaySeconds,
} from "./delivery.ts";
export { type EmailDetail, getEmailDetail } from "./detail.ts";
export { appendEvents, listEvents } from "./events.ts";
export { type AcceptQueue, type AcceptQueueOptions, createAcceptQueue } from "./group-commit.ts";
export { MAX_HEADER_VALUE_LENGTH, MAX_RECIPIENTS } from "./limits.ts";
export { cancelEmail, type EmailFilter, listEmails, rescheduleEmail } from "./log.ts";
export {
  failUnsentEmailsOfKey,
  findSendingEmailAccount,
  getEmail,
  loadAttachments,
  loadRawMessage,
  purgeIdempotencyKeys,
} from "./queries.ts";
export { purgeExpiredEmails } from "./retention.ts";
export {
  type AttachmentInput,
  canonicalBodyHash,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_SUBJECT_LENGTH,
  normalizeSendRequest,
  requestedTemplate,
  resolveIdempotencyKey,
  type SendRequestBody,
  validateScheduledAt,
} from "./send-request.ts";
export {
  normalizeSubmittedMessage,
  type Submission,
  submissionIdempotencyKey,
} from "./submitted-message.ts";
export * from "./types.ts";
