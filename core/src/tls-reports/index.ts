// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export type { TlsOutcome, TlsPolicyExemption } from "./outcome.ts";
export { createTlsRecorder } from "./record.ts";
export { sendTlsReports } from "./send.ts";
export { purgeTlsReportData } from "./store.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { buildTlsReport } from "./report.ts";
/** @internal */
export { composeReportMail } from "./message.ts";
/** @internal */
export { parseTlsRptRecords } from "./rua.ts";
/** @internal */
export { sessionRowsOf } from "./record.ts";
