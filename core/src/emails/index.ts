export { type AcceptContext, acceptEmails } from "./accept.ts";
export { type Claimed, claimForDelivery, type DeliveryOutcome, recordDeliveryOutcome } from "./delivery.ts";
export { appendEvents, listEvents } from "./events.ts";
export { failUnsentEmailsOfKey, getEmail } from "./queries.ts";
export * from "./types.ts";
