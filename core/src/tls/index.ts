export { ensureLocalCertificates, type LocalTlsFiles } from "./local-ca.ts";
