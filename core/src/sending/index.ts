export {
  type BatchItem,
  type BatchItemResult,
  type BatchPolicy,
  createEmailSender,
  type EmailSender,
  type SendContext,
  type SendDeps,
  type SendResult,
} from "./send-emails.ts";
