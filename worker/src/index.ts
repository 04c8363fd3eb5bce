export type { WorkerDeps } from "./deps.ts";
export { startWorker, type WorkerHandle } from "./runner.ts";
export { createSigner, type Signer, signingPlaceFor } from "./signing.ts";
export { createTransport, type MailTransport } from "./transports/index.ts";
