import type { PoolClient } from "../../db/pool.ts";
import { decompressReport, findReportPayload } from "./extract.ts";
import { DmarcReportError, parseAggregateXml } from "./parse.ts";
import { type StoreOutcome, storeAggregateReport } from "./store.ts";

export { getDmarcSummary, purgeDmarcData } from "./store.ts";

/** What became of a message read as a DMARC aggregate report; stored as the inbound report's outcome. */
export type DmarcOutcome =
  | ({ kind: "dmarc_aggregate"; reporter: string; reportId: string } & StoreOutcome)
  | { kind: "dmarc_aggregate"; stored: false; reason: DmarcReportError["reason"]; message: string };

/** A message's aggregate report read and checked, or undefined when it carries none. Never throws. */
export async function readDmarcReport(raw: Buffer) {
  let payload: Buffer | undefined;
  try {
    payload = await findReportPayload(raw);
  } catch {
    return undefined; // Not MIME that mailparser reads: let the bounce parser say what it is.
  }
  if (!payload) return undefined;
  try {
    return { ok: true as const, report: parseAggregateXml(decompressReport(payload)) };
  } catch (error) {
    // Whatever else a parser throws on hostile input is a malformed report, never a failed job.
    const known = error instanceof DmarcReportError;
    const outcome: DmarcOutcome = {
      kind: "dmarc_aggregate",
      stored: false,
      reason: known ? error.reason : "malformed_xml",
      message: known ? error.message : "The report could not be read.",
    };
    return { ok: false as const, outcome };
  }
}

/**
 * Stores a report `readDmarcReport` accepted for `account` (the bounce domain's owner), in the caller's
 * transaction: the one writer of dmarc_reports and dmarc_sources.
 */
export async function recordDmarcReport(
  client: PoolClient,
  input: { account: string; inboundReportId: string; raw: Awaited<ReturnType<typeof readDmarcReport>> },
): Promise<DmarcOutcome | undefined> {
  const read = input.raw;
  if (!read) return undefined;
  if (!read.ok) return read.outcome;
  const { report } = read;
  const stored = await storeAggregateReport(client, {
    account: input.account,
    inboundReportId: input.inboundReportId,
    report,
  });
  return { kind: "dmarc_aggregate", reporter: report.reporter, reportId: report.reportId, ...stored };
}
