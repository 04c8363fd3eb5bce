export { clearInbox, readInboxAttachment, readInboxMessage, readInboxRaw } from "./inbox.ts";
export { waitForInbox } from "./wait.ts";
