import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseReport } from "./parse.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

describe("parseReport: DSNs (RFC 3464 appendix A)", () => {
  it("reads the simple DSN: a failure with a 4.x.x status is soft", async () => {
    const report = await parseReport(fixture("rfc3464-a1-simple.eml"));
    expect(report).toMatchObject({
      kind: "bounce",
      format: "dsn",
      reportingMta: "cs.utk.edu",
      recipients: [
        {
          recipient: "louisl@larry.slip.umd.edu",
          action: "failed",
          status: "4.0.0",
          diagnostic: "426 connection timed out",
          class: "soft",
        },
      ],
    });
  });

  it("reads every recipient of the multi-recipient DSN, with folded diagnostics", async () => {
    const report = await parseReport(fixture("rfc3464-a2-multi-recipient.eml"));
    if (report.kind !== "bounce") throw new Error(`expected a bounce, got ${report.kind}`);
    expect(report.recipients.map((r) => [r.recipient, r.action, r.status, r.class])).toEqual([
      ["arathib@vnet.ibm.com", "failed", "5.0.0", "hard"],
      ["johnh@hpnjld.njd.hp.com", "delayed", "4.0.0", "soft"],
      ["wsnell@sdcc13.ucsd.edu", "failed", "5.0.0", "hard"],
    ]);
    expect(report.recipients[0]?.diagnostic).toBe(
      "550 'arathib@vnet.IBM.COM' is not a registered gateway user",
    );
    expect(report.recipients[0]?.remoteMta).toBe("vnet.ibm.com");
  });
});

describe("parseReport: ARF complaints (RFC 5965 appendix B)", () => {
  it("reads the simple report: feedback type and the original's Message-ID, no recipient", async () => {
    const report = await parseReport(fixture("rfc5965-b1-simple.eml"));
    expect(report).toMatchObject({
      kind: "complaint",
      feedbackType: "abuse",
      userAgent: "SomeGenerator/1.0",
      recipients: [],
    });
  });

  it("reads the complete report's Original-Rcpt-To and Original-Mail-From", async () => {
    const report = await parseReport(fixture("rfc5965-b2-complete.eml"));
    if (report.kind !== "complaint") throw new Error(`expected a complaint, got ${report.kind}`);
    expect(report.recipients).toEqual(["user@example.com"]);
    expect(report.original.envelopeSenders).toContain("somespammer@example.net");
  });
});

describe("parseReport: plain-text bounces", () => {
  it("reads qmail's failure notice and the quoted Message-ID", async () => {
    const report = await parseReport(fixture("qmail-failure-notice.eml"));
    expect(report).toMatchObject({
      kind: "bounce",
      format: "non_standard",
      recipients: [{ recipient: "gone@example.org", status: "5.1.1", class: "hard" }],
      original: { messageId: "<0193a9c2-0000-7000-8000-000000000001@mailroom.test>" },
    });
    if (report.kind === "bounce") expect(report.recipients[0]?.diagnostic).toContain("User unknown");
  });

  it("reads Exim's X-Failed-Recipients and the status after the address", async () => {
    const report = await parseReport(fixture("exim-mail-delivery-failed.eml"));
    expect(report).toMatchObject({
      kind: "bounce",
      format: "non_standard",
      recipients: [{ recipient: "full@example.org", status: "5.2.2", class: "hard" }],
      original: { messageId: "<0193a9c2-0000-7000-8000-000000000002@mailroom.test>" },
    });
  });

  it("does not take an auto-reply for a bounce, whatever numbers it contains", async () => {
    expect(await parseReport(fixture("vacation-auto-reply.eml"))).toMatchObject({ kind: "unrecognised" });
  });
});

describe("parseReport: hostile input", () => {
  it("answers unrecognised for garbage, empty input and a report without recipients", async () => {
    expect((await parseReport(Buffer.alloc(0))).kind).toBe("unrecognised");
    expect((await parseReport(Buffer.from("\u0000\u00ff\r\n\r\n--\r\n"))).kind).toBe("unrecognised");
    const noRecipients = fixture("rfc3464-a1-simple.eml")
      .toString()
      .replace(/^Final-Recipient.*$/m, "")
      .replace(/^Original-Recipient.*$/m, "");
    expect(await parseReport(Buffer.from(noRecipients))).toMatchObject({ kind: "unrecognised" });
  });

  it("reads a report with thousands of recipient groups without trouble, keeping a bounded number", async () => {
    const group = (i: number) =>
      `Final-Recipient: rfc822; u${i}@example.org\nAction: failed\nStatus: 5.1.1\n`;
    const raw = fixture("rfc3464-a1-simple.eml")
      .toString()
      .replace(
        /Original-Recipient[\s\S]*?-0400\n/,
        Array.from({ length: 5000 }, (_, i) => group(i)).join("\n"),
      );
    const report = await parseReport(Buffer.from(raw));
    if (report.kind !== "bounce") throw new Error(`expected a bounce, got ${report.kind}`);
    expect(report.recipients.length).toBeGreaterThan(0);
    expect(report.recipients.length).toBeLessThan(1000);
  });
});

describe("parseReport: the quoted original's Return-Path", () => {
  it("reads the envelope sender from the quoted original's Return-Path header", async () => {
    const dsn = [
      "From: MAILER-DAEMON@mx.example.org",
      "To: bounces@bounce.example.com",
      "Subject: Undelivered Mail Returned to Sender",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
      "",
      "--b",
      "Content-Type: text/plain",
      "",
      "Your message could not be delivered.",
      "--b",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.example.org",
      "",
      "Final-Recipient: rfc822; gone@example.org",
      "Action: failed",
      "Status: 5.1.1",
      "",
      "--b",
      "Content-Type: text/rfc822-headers",
      "",
      "Return-Path: <b+token123@bounce.example.com>",
      "From: app@example.com",
      "To: gone@example.org",
      "Message-ID: <original@example.com>",
      "",
      "--b--",
      "",
    ].join("\r\n");
    const report = await parseReport(Buffer.from(dsn));
    if (report.kind !== "bounce") throw new Error(`expected a bounce, got ${report.kind}`);
    expect(report.original.envelopeSenders).toContain("b+token123@bounce.example.com");
    expect(report.original.messageId).toBe("<original@example.com>");
  });
});
