/** Each domain's compliance checks as status (issue 29 item 2, ADR 0036). */
export { sendingPathFrom } from "./probes.ts";
