// The SMTP program (`mailroom smtp`, ADR 0019): the submission door (ports 587/465, issue 16) and the inbound
// receiver for bounce and complaint reports (issue 17). Both write through core, like the API does.
export type { SmtpDeps } from "./deps.ts";
export {
  type InboundReceiver,
  type InboundReceiverOptions,
  startInboundReceiver,
} from "./inbound/receiver.ts";
export { type ListeningSmtpServer, listenSmtpServer } from "./listen.ts";
export { type SmtpDoors, type SubmissionServers, startSmtpDoors, startSubmissionServers } from "./program.ts";
