import { gunzipSync } from "node:zlib";
import PostalMime from "postal-mime";
import { describe, expect, it } from "vitest";
import { tlsReportErrors } from "../../../test/support/tlsrpt-schema.ts";
import { tlsTimelineOf } from "../emails/tls-detail.ts";
import {
  buildTlsReport,
  composeReportMail,
  parseTlsRptRecords,
  sessionRowsOf,
  type TlsOutcome,
} from "./index.ts";
import type { SessionCount } from "./report.ts";

const reporter = {
  organizationName: "Mailroom Test",
  contactInfo: "tls-reports@reports.test",
  submitter: "reports.test",
};
const STS = ["version: STSv1", "mode: enforce", "mx: *.mail.receiver.test", "max_age: 86400"];
const count = (over: Partial<SessionCount>): SessionCount => ({
  policyType: "sts",
  policySha256: "a".repeat(64),
  policyStrings: STS,
  mxHost: "mx1.mail.receiver.test",
  receivingIp: "192.0.2.25",
  resultType: "success",
  failureReason: "",
  sessions: 1,
  ...over,
});

describe("the _smtp._tls record (RFC 8460 §3)", () => {
  it("reads mailto and https URIs, and nothing else", () => {
    expect(
      parseTlsRptRecords([
        "v=TLSRPTv1; rua=mailto:TLS@Receiver.test, https://rpt.receiver.test/v1 ,ftp://x.test",
      ]),
    ).toEqual([
      { kind: "mailto", address: "tls@receiver.test", uri: "mailto:TLS@Receiver.test" },
      { kind: "https", uri: "https://rpt.receiver.test/v1" },
    ]);
    expect(parseTlsRptRecords(["v=TLSRPTv1;rua=mailto:a%40b@receiver.test?subject=x"])).toEqual([]);
    expect(parseTlsRptRecords(["v=TLSRPTv1;rua=mailto:tls@receiver.test?subject=x"])).toMatchObject([
      { address: "tls@receiver.test" },
    ]);
  });

  it("discards other records and gives up unless exactly one is left", () => {
    expect(parseTlsRptRecords(["v=spf1 -all", "v=TLSRPTv1; rua=mailto:a@receiver.test"])).toHaveLength(1);
    expect(
      parseTlsRptRecords([
        "v=TLSRPTv1; rua=mailto:a@receiver.test",
        "v=TLSRPTv1; rua=mailto:b@receiver.test",
      ]),
    ).toEqual([]);
    expect(parseTlsRptRecords(["v=TLSRPTv1"])).toEqual([]);
    expect(parseTlsRptRecords(["v=TLSRPTv2; rua=mailto:a@receiver.test"])).toEqual([]);
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=http://plain.receiver.test/"])).toEqual([]);
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=https://user:pw@receiver.test/"])).toEqual([]);
  });

  it("sends to at most five URIs, each once", () => {
    const many = Array.from({ length: 9 }, (_, i) => `mailto:r${i}@receiver.test`);
    const record = `v=TLSRPTv1; rua=${[...many, "mailto:R0@receiver.test"].join(",")}`;
    expect(parseTlsRptRecords([record]).map((u) => u.uri)).toEqual(many.slice(0, 5));
  });
});

describe("the report (RFC 8460 §4)", () => {
  const report = buildTlsReport(reporter, "receiver.test", "2031-03-10", [
    count({ sessions: 40 }),
    count({ sessions: 3, resultType: "certificate-expired", failureReason: "certificate has expired" }),
    count({
      sessions: 2,
      resultType: "validation-failure",
      mxHost: "mx2.mail.receiver.test",
      receivingIp: "",
    }),
    count({ policyType: "no-policy-found", policySha256: "b".repeat(64), policyStrings: [], sessions: 5 }),
  ]);

  it("validates against the RFC's schema, with a policy per policy applied", () => {
    expect(tlsReportErrors(report)).toEqual([]);
    expect(report).toMatchObject({
      "organization-name": "Mailroom Test",
      "date-range": { "start-datetime": "2031-03-10T00:00:00Z", "end-datetime": "2031-03-10T23:59:59Z" },
      "contact-info": "tls-reports@reports.test",
      "report-id": "20310310.receiver.test@reports.test",
    });
    expect(report.policies).toEqual([
      {
        policy: {
          "policy-type": "sts",
          "policy-string": STS,
          "policy-domain": "receiver.test",
          "mx-host": ["*.mail.receiver.test"],
        },
        summary: { "total-successful-session-count": 40, "total-failure-session-count": 5 },
        "failure-details": [
          {
            "result-type": "certificate-expired",
            "receiving-mx-hostname": "mx1.mail.receiver.test",
            "receiving-ip": "192.0.2.25",
            "failed-session-count": 3,
            "failure-reason-code": "certificate has expired",
          },
          {
            "result-type": "validation-failure",
            "receiving-mx-hostname": "mx2.mail.receiver.test",
            "failed-session-count": 2,
          },
        ],
      },
      {
        policy: {
          "policy-type": "no-policy-found",
          "policy-domain": "receiver.test",
          "mx-host": ["mx1.mail.receiver.test"],
        },
        summary: { "total-successful-session-count": 5, "total-failure-session-count": 0 },
      },
    ]);
  });

  it("is caught by the schema when a field breaks the RFC", () => {
    expect(tlsReportErrors({ ...report, "report-id": undefined })).not.toEqual([]);
    const badType = structuredClone(report);
    (badType.policies[0] as { policy: { "policy-type": string } }).policy["policy-type"] = "dane";
    expect(tlsReportErrors(badType)).not.toEqual([]);
  });

  it("is mailed as multipart/report; report-type=tlsrpt with the gzip JSON (§5.3)", async () => {
    const raw = composeReportMail({
      from: "tls-reports@reports.test",
      to: "tls@receiver.test",
      policyDomain: "receiver.test",
      submitter: "reports.test",
      report,
      now: new Date("2031-03-11T00:10:00Z"),
    });
    expect(raw.toString("latin1")).not.toMatch(/[^\r]\n/);
    const headerText = raw.toString("latin1").split("\r\n\r\n")[0] as string;
    expect(headerText).toMatch(/^Content-Type: multipart\/report; report-type="tlsrpt";/m);
    const mail = await PostalMime.parse(raw);
    expect(mail.subject).toBe(
      "Report Domain: receiver.test Submitter: reports.test Report-ID: <20310310.receiver.test@reports.test>",
    );
    const header = (name: string) => mail.headers.find((h) => h.key === name)?.value;
    expect(header("tls-report-domain")).toBe("receiver.test");
    expect(header("tls-report-submitter")).toBe("reports.test");
    const [attachment] = mail.attachments;
    expect(attachment?.mimeType).toBe("application/tlsrpt+gzip");
    expect(attachment?.filename).toBe("reports.test!receiver.test!1930867200!1930953599.json.gz");
    const json = JSON.parse(gunzipSync(Buffer.from(attachment?.content as ArrayBuffer)).toString("utf8"));
    expect(json).toEqual(report);
    expect(tlsReportErrors(json)).toEqual([]);
  });
});

const outcome = (over: Partial<TlsOutcome> = {}): TlsOutcome => ({
  mechanism: "mta-sts",
  policyDomain: "Receiver.TEST.",
  policyType: "sts",
  policyStrings: STS,
  enforced: true,
  mxHost: "mx1.mail.receiver.test",
  receivingIp: "192.0.2.25",
  result: "success",
  tls: true,
  verified: true,
  ...over,
});

describe("an attempt's sessions", () => {
  it("counts recipients that shared a session once, per UTC day, names in A-labels, relays left out", () => {
    const at = new Date("2031-03-10T23:59:59Z");
    const expired = outcome({ result: "certificate-expired", detail: "expired", verified: false });
    // A relay session is with the relay, not the recipient domain's MX: nothing to report to that domain.
    const relay = outcome({ mechanism: "relay", policyDomain: "relay.test", policyType: "no-policy-found" });
    const rows = sessionRowsOf(
      [outcome(), outcome(), expired, undefined, relay, outcome({ policyDomain: "bücher.test" })],
      at,
    );
    expect(rows.map((r) => [r.day, r.policy_domain, r.result_type, r.failure_reason, r.sessions])).toEqual([
      ["2031-03-10", "receiver.test", "success", "", 1],
      ["2031-03-10", "receiver.test", "certificate-expired", "expired", 1],
      ["2031-03-10", "xn--bcher-kva.test", "success", "", 1],
    ]);
  });

  it("shows on the timeline as one readable line per session", () => {
    const entries = tlsTimelineOf([
      { tls: outcome() },
      { tls: outcome() },
      {
        tls: outcome({ result: "certificate-expired", detail: "expired", verified: false, enforced: false }),
      },
      {},
    ]);
    expect(entries.map((e) => e.text)).toEqual([
      "mx1.mail.receiver.test: verified TLS (mta-sts, success)",
      "mx1.mail.receiver.test: unverified TLS (mta-sts, certificate-expired: expired, policy not enforced)",
    ]);
    expect(entries[0]).toMatchObject({ mx: "mx1.mail.receiver.test", mechanism: "mta-sts", verified: true });
  });
});
