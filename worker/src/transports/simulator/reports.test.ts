import { parseReport } from "@mailroom/core/bounces";
import { describe, expect, it } from "vitest";
import { autoReply, complaintReport, hardBounceReport, type ReportSubject } from "./reports.ts";

const subject: ReportSubject = {
  recipient: "bounced+a@simulator.mailroom.invalid",
  returnPath: "bounce+0123456789abcdef0123456789abcdef-0123456789abcdef0123@bounces.shop.test",
  headers:
    "From: Shop <orders@shop.test>\r\nTo: bounced+a@simulator.mailroom.invalid\r\nSubject: Order 1\r\nMessage-ID: <m1@shop.test>",
  messageId: "<m1@shop.test>",
  subject: "Order 1",
  domain: "simulator.mailroom.invalid",
  now: new Date("2026-11-28T12:00:00Z"),
};

// The reports are read by the bounce receiver's own parser, as a real MTA's would be.
describe("simulated reports", () => {
  it("the DSN is a hard bounce (5.1.1) of the recipient, quoting the original", async () => {
    const parsed = await parseReport(await hardBounceReport(subject));
    expect(parsed).toMatchObject({
      kind: "bounce",
      format: "dsn",
      reportingMta: "simulator.mailroom.invalid",
      recipients: [{ recipient: subject.recipient, action: "failed", status: "5.1.1", class: "hard" }],
      original: { messageId: "<m1@shop.test>" },
    });
  });

  it("the ARF report is an abuse complaint naming the recipient and the VERP address", async () => {
    const parsed = await parseReport(await complaintReport(subject));
    expect(parsed).toMatchObject({
      kind: "complaint",
      feedbackType: "abuse",
      recipients: [subject.recipient],
      original: { messageId: "<m1@shop.test>" },
    });
    expect(parsed.kind === "complaint" && parsed.original.envelopeSenders).toContain(subject.returnPath);
  });

  it("the auto-reply is no report at all", async () => {
    const raw = await autoReply(subject);
    expect(raw.toString()).toMatch(/^Auto-Submitted: auto-replied$/m);
    expect((await parseReport(raw)).kind).toBe("unrecognised");
  });
});
