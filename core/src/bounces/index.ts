// biome-ignore-all assist/source/organizeImports: the test-only exports below stay apart, tagged for knip.
export { processReport } from "./process.ts";
export { purgeReports, storeReport } from "./reports.ts";
export { deriveVerpKey, type VerpKey, verpAddress } from "./verp.ts";

// Used by tests only: knip's production run ignores `@internal`; its full run still requires a user.
/** @internal */
export { getReportOutcome } from "./reports.ts";
/** @internal */
export { readVerpAddress } from "./verp.ts";
/** @internal */
export { parseReport } from "./parse.ts";
