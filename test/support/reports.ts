import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import nodemailer from "nodemailer";

const FIXTURES = new URL("../../core/src/bounces/fixtures/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), "utf8");

/** The headers of a message as the next hop received it (what a report quotes). */
export function headersOf(raw: Buffer): string {
  const text = raw.toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
}

/**
 * RFC 3464 appendix A.1's DSN, addressed to `to` (the VERP address, or any bounce address), about
 * `recipient`, with the given action/status/diagnostic and the original's headers as text/rfc822-headers.
 */
export function dsnReport(options: {
  to: string;
  recipient: string;
  action: "failed" | "delayed";
  status: string;
  diagnostic: string;
  originalHeaders: string;
}): Buffer {
  const text = fixture("rfc3464-a1-simple.eml")
    .replace("To: <owner-info-mime@cs.utk.edu>", `To: <${options.to}>`)
    .replaceAll("louisl@larry.slip.umd.edu", options.recipient)
    .replace("Action: failed", `Action: ${options.action}`)
    .replace("Status: 4.0.0", `Status: ${options.status}`)
    .replace(
      "Diagnostic-Code: smtp; 426 connection timed out",
      `Diagnostic-Code: smtp; ${options.diagnostic}`,
    )
    .replace(
      "content-type: message/rfc822\n\n[original message goes here]",
      `content-type: text/rfc822-headers\n\n${options.originalHeaders}`,
    );
  return Buffer.from(text.replaceAll(/\r?\n/g, "\r\n"));
}

/** RFC 5965 appendix B.2's complaint about `recipient`, quoting the original's headers. */
export function arfReport(options: {
  to: string;
  recipient: string | undefined;
  originalHeaders: string;
}): Buffer {
  let text = fixture("rfc5965-b2-complete.eml").replace("To: <abuse@example.net>", `To: <${options.to}>`);
  text = options.recipient
    ? text.replace("Original-Rcpt-To: <user@example.com>", `Original-Rcpt-To: <${options.recipient}>`)
    : text.replace("Original-Rcpt-To: <user@example.com>\n", "");
  const start = text.indexOf("From: <somespammer@example.net>\nReceived:");
  const end = text.indexOf("--part1_13d.2e68ed54_boundary--");
  text = `${text.slice(0, start)}${options.originalHeaders}\n\n(body omitted)\n${text.slice(end)}`;
  return Buffer.from(text.replaceAll(/\r?\n/g, "\r\n"));
}

export interface SmtpAnswer {
  code: number;
  response: string;
  /** The report id from a `250 2.0.0 Report queued as <id>` answer. */
  reportId: string | undefined;
}

const reportIdOf = (response: string) => /Report queued as ([0-9a-f-]{36})/.exec(response)?.[1];

/** Sends a report with a null sender (`MAIL FROM:<>`, as bounces come) through nodemailer. */
export async function sendWithNodemailer(port: number, to: string, raw: Buffer): Promise<SmtpAnswer> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail({ envelope: { from: "", to: [to] }, raw });
    return { code: 250, response: info.response, reportId: reportIdOf(info.response) };
  } catch (error) {
    const e = error as { responseCode?: number; response?: string; message: string };
    return { code: e.responseCode ?? 0, response: e.response ?? e.message, reportId: undefined };
  } finally {
    transport.close();
  }
}

const PY_SEND = `
import smtplib, sys
raw = sys.stdin.buffer.read()
s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=30)
s.ehlo("reporter.test")
code, msg = s.mail("")
assert code == 250, (code, msg)
code, msg = s.rcpt(sys.argv[2])
if code != 250:
    print(code, msg.decode()); sys.exit(0)
code, msg = s.data(raw)
print(code, msg.decode())
s.quit()
`;

/** Sends a report with Python's smtplib, a client not written in Node. */
export async function sendWithPython(port: number, to: string, raw: Buffer): Promise<SmtpAnswer> {
  const child = promisify(execFile)("python3", ["-c", PY_SEND, String(port), to]);
  child.child.stdin?.end(raw);
  const { stdout } = await child;
  const [code = "0", ...rest] = stdout.trim().split(" ");
  const response = rest.join(" ");
  return { code: Number(code), response, reportId: reportIdOf(response) };
}
