export {
  clearInbox,
  inboxMessageFile,
  listInbox,
  newInboxMessageId,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
} from "./inbox.ts";
