export { buildApp } from "./app.ts";
export type { ApiDeps } from "./deps.ts";
export { type ApiServer, readTlsFiles, startApiServer, type TlsMaterial } from "./server.ts";
