export {
  clearInbox,
  type InboxMessage,
  type InboxSummary,
  inboxMessageFile,
  inboxOwnerFile,
  listInbox,
  newInboxMessageId,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
} from "./inbox.ts";
