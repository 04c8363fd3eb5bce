// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { readTlsFiles, reloadTlsOnChange, type TlsMaterial } from "./files.ts";
export { ensureLocalCertificates } from "./local-ca.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export type { LocalTlsFiles } from "./local-ca.ts";
/** @internal */
export { createTestCa, type TestCa } from "./test-ca.ts";
