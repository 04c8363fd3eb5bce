export {
  clearInbox,
  type InboxMessage,
  type InboxSummary,
  inboxMessageFile,
  listInbox,
  newInboxMessageId,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
} from "./inbox.ts";
