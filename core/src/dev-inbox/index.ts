export {
  clearInbox,
  inboxMessageFile,
  inboxOwnerFile,
  listInbox,
  newInboxMessageId,
  readInboxAttachment,
  readInboxMessage,
  readInboxRaw,
} from "./inbox.ts";
