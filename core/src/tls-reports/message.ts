import { createHash, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { TlsReport } from "./report.ts";

/** The report as sent: gzip-compressed JSON (RFC 8460 §5.1, `application/tlsrpt+gzip`). */
export const gzipReport = (report: TlsReport) => gzipSync(Buffer.from(JSON.stringify(report), "utf8"));

/**
 * The attachment's file name (§5.1): `sender!policy-domain!begin-timestamp!end-timestamp.json.gz`, the
 * timestamps in seconds since the epoch.
 */
export function reportFilename(report: TlsReport, submitter: string, policyDomain: string): string {
  const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const range = report["date-range"];
  return `${submitter}!${policyDomain}!${seconds(range["start-datetime"])}!${seconds(range["end-datetime"])}.json.gz`;
}

/** RFC 5322 date-time in UTC. */
const rfc5322Date = (at: Date) => at.toUTCString().replace(/GMT$/, "+0000");

/** Base64 in lines of 76 characters (RFC 2045 §6.8). */
const base64Lines = (bytes: Buffer) => (bytes.toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");

export interface ReportMail {
  from: string;
  to: string;
  policyDomain: string;
  submitter: string;
  report: TlsReport;
  now?: Date;
}

/**
 * The report as an email (§5.3): `multipart/report; report-type="tlsrpt"` with a human-readable part and the
 * gzip report as `application/tlsrpt+gzip`; the `TLS-Report-Domain` and `TLS-Report-Submitter` headers and
 * the subject `Report Domain: … Submitter: … Report-ID: <…>`. The Message-ID is derived from the report id
 * and the recipient, so each report URI gets its own and a rerun makes the same one.
 */
export function composeReportMail(mail: ReportMail): Buffer {
  const { report, policyDomain, submitter } = mail;
  const reportId = report["report-id"];
  const boundary = `tlsrpt-${randomBytes(12).toString("hex")}`;
  const tag = createHash("sha256").update(`${reportId}\n${mail.to}`).digest("hex").slice(0, 16);
  const [left] = reportId.split("@");
  const range = report["date-range"];
  const lines = [
    `From: ${mail.from}`,
    `To: ${mail.to}`,
    `Date: ${rfc5322Date(mail.now ?? new Date())}`,
    `Message-ID: <${left}.${tag}@${submitter}>`,
    // Folded between its parts (FWS in §5.3's ABNF): long domain names cannot push it past a line's limit.
    `Subject: Report Domain: ${policyDomain}\r\n Submitter: ${submitter}\r\n Report-ID: <${reportId}>`,
    `TLS-Report-Domain: ${policyDomain}`,
    `TLS-Report-Submitter: ${submitter}`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type="tlsrpt";\r\n boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "Content-Transfer-Encoding: 7bit",
    "",
    `This is an aggregate TLS report (RFC 8460) from ${report["organization-name"]} about the mail it sent`,
    `to ${policyDomain} from ${range["start-datetime"]} to ${range["end-datetime"]}.`,
    "",
    `--${boundary}`,
    "Content-Type: application/tlsrpt+gzip",
    "Content-Transfer-Encoding: base64",
    `Content-Disposition: attachment;\r\n filename="${reportFilename(report, submitter, policyDomain)}"`,
    "",
    base64Lines(gzipReport(report)),
    `--${boundary}--`,
    "",
  ];
  return Buffer.from(lines.join("\r\n"), "utf8");
}
