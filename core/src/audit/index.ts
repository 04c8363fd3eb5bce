export { listAuditEvents, normalizeAuditFilter } from "./list.ts";
export { purgeAuditEvents } from "./retention.ts";
export * from "./types.ts";
