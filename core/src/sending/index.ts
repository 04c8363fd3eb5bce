export {
  type BatchItem,
  createEmailSender,
  type EmailSender,
  type SendContext,
} from "./send-emails.ts";
