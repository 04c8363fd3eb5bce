export type { WorkerDeps } from "./deps.ts";
export { startWorker, type WorkerHandle } from "./runner.ts";
export { createSmtpTransport, type Transporter } from "./transport.ts";
