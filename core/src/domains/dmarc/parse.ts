import { isIP } from "node:net";
import { XMLParser, XMLValidator } from "fast-xml-parser";

/** One row of an aggregate report: what a receiver saw from one source IP for one From domain. */
export interface AggregateRecord {
  sourceIp: string;
  count: number;
  headerFrom: string;
  /** The DMARC-aligned results as the receiver evaluated them (`policy_evaluated`). */
  dkim: "pass" | "fail";
  spf: "pass" | "fail";
}

/** An RFC 7489 appendix C aggregate report, reduced to what Mailroom keeps. */
export interface AggregateReport {
  reporter: string;
  reportId: string;
  begin: Date;
  end: Date;
  policyDomain: string;
  records: AggregateRecord[];
}

/** Why a report was refused; stored as the report's outcome. */
export type DmarcRefusal =
  | "dtd_refused"
  | "malformed_xml"
  | "not_a_dmarc_report"
  | "too_large"
  | "too_many_records"
  | "bad_archive";

export class DmarcReportError extends Error {
  readonly reason: DmarcRefusal;
  constructor(reason: DmarcRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Largest report after decompression. Google's reports for busy senders run to a few hundred KiB. */
export const MAX_XML_BYTES = 10 * 1024 * 1024;
const MAX_RECORDS = 50_000;
// A count beyond this is a lie or a typo; it would let one report drown every other source.
const MAX_COUNT = 1_000_000_000;
const MAX_TEXT = 255;

// A DMARC report never needs a DTD. Refusing any before parsing means no entity is ever defined, so there
// is nothing to expand (billion laughs) and no external reference to follow (XXE), whatever the parser does.
const DTD = /<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  trimValues: true,
  removeNSPrefix: true,
  isArray: (_name, jpath) => jpath === "feedback.record",
});

type Node = Record<string, unknown>;
const node = (value: unknown): Node => (value && typeof value === "object" ? (value as Node) : {});
const text = (value: unknown): string =>
  typeof value === "string" ? value.slice(0, MAX_TEXT) : typeof value === "number" ? String(value) : "";
const domainText = (value: unknown) => text(value).toLowerCase().replace(/\.$/, "");
const result = (value: unknown): "pass" | "fail" => (text(value).toLowerCase() === "pass" ? "pass" : "fail");

function epoch(value: unknown): Date | undefined {
  const seconds = Number(text(value));
  return Number.isSafeInteger(seconds) && seconds >= 0 ? new Date(seconds * 1000) : undefined;
}

function notReport(message: string): never {
  throw new DmarcReportError("not_a_dmarc_report", message);
}

function parseRecord(value: unknown): AggregateRecord | undefined {
  const record = node(value);
  const row = node(record.row);
  const evaluated = node(row.policy_evaluated);
  const sourceIp = text(row.source_ip);
  const count = Number(text(row.count));
  const headerFrom = domainText(node(record.identifiers).header_from);
  // A row without a usable address or count says nothing about any source: skipped, not fatal.
  if (isIP(sourceIp) === 0 || !Number.isSafeInteger(count) || count < 0 || headerFrom === "")
    return undefined;
  return {
    sourceIp,
    count: Math.min(count, MAX_COUNT),
    headerFrom,
    dkim: result(evaluated.dkim),
    spf: result(evaluated.spf),
  };
}

/**
 * Parses the XML of an aggregate report. Throws DmarcReportError for a DTD (refused, see above), XML that
 * does not parse, a document that is not a `<feedback>` report, or more than MAX_RECORDS records.
 */
export function parseAggregateXml(xml: Buffer): AggregateReport {
  if (xml.length > MAX_XML_BYTES) throw new DmarcReportError("too_large", "The report is too large.");
  const source = xml.toString("utf8");
  if (DTD.test(source)) throw new DmarcReportError("dtd_refused", "A DMARC report may not carry a DTD.");
  const valid = XMLValidator.validate(source);
  if (valid !== true) {
    throw new DmarcReportError("malformed_xml", `The report is not well-formed XML: ${valid.err.msg}`);
  }
  const feedback = node(node(parser.parse(source)).feedback);
  const metadata = node(feedback.report_metadata);
  const range = node(metadata.date_range);
  const reporter = text(metadata.org_name);
  const reportId = text(metadata.report_id);
  const begin = epoch(range.begin);
  const end = epoch(range.end);
  const policyDomain = domainText(node(feedback.policy_published).domain);
  if (!reporter || !reportId || !begin || !end || !policyDomain) {
    notReport("The document is not a DMARC aggregate report (RFC 7489 appendix C).");
  }
  const rows = Array.isArray(feedback.record) ? feedback.record : [];
  if (rows.length > MAX_RECORDS) {
    throw new DmarcReportError("too_many_records", `The report has more than ${MAX_RECORDS} records.`);
  }
  const records = rows.map(parseRecord).filter((r): r is AggregateRecord => r !== undefined);
  return { reporter, reportId, begin, end, policyDomain, records };
}
