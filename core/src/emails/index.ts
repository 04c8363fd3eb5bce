export { type AcceptContext, acceptEmails } from "./accept.ts";
export { formatMailbox, type Mailbox, parseAddress, parseMailbox } from "./address.ts";
export { type Claimed, claimForDelivery, type DeliveryOutcome, recordDeliveryOutcome } from "./delivery.ts";
export { appendEvents, listEvents } from "./events.ts";
export { failUnsentEmailsOfKey, getEmail } from "./queries.ts";
export {
  canonicalBodyHash,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_RECIPIENTS,
  MAX_SUBJECT_LENGTH,
  normalizeSendRequest,
  type SendRequestBody,
} from "./send-request.ts";
export * from "./types.ts";
