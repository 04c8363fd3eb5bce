export { readTlsFiles, reloadTlsOnChange, type TlsMaterial } from "./files.ts";
export { ensureLocalCertificates, type LocalTlsFiles } from "./local-ca.ts";
