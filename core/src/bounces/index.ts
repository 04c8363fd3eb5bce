export type { ParsedReport } from "./parse.ts";
export { processReport, type ReportDeps } from "./process.ts";
export {
  getReportOutcome,
  type IncomingReport,
  purgeReports,
  storeReport,
} from "./reports.ts";
export { deriveVerpKey, readVerpAddress, type VerpKey, verpAddress } from "./verp.ts";
