import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { decompressReport, findReportPayload } from "./extract.ts";
import { readDmarcReport } from "./index.ts";
import { DmarcReportError, MAX_XML_BYTES, parseAggregateXml } from "./parse.ts";

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));

/** A minimal report around the given records' XML. */
function reportXml(records: string, prolog = ""): Buffer {
  return Buffer.from(`<?xml version="1.0"?>${prolog}
<feedback><report_metadata><org_name>test.example</org_name><report_id>r1</report_id>
<date_range><begin>1764288000</begin><end>1764374399</end></date_range></report_metadata>
<policy_published><domain>shop.test</domain><p>none</p></policy_published>${records}</feedback>`);
}

const row = (ip: string, count: number, dkim: string, spf: string, from = "shop.test") =>
  `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition>
<dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated></row><identifiers><header_from>${from}</header_from>
</identifiers></record>`;

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof DmarcReportError) return error.reason;
    throw error;
  }
  return "accepted";
};

describe("DMARC aggregate reports: the real receivers' files", () => {
  it("reads Outlook.com's plain XML, FastMail's gzip and a zip", () => {
    const outlook = parseAggregateXml(decompressReport(fixture("outlook.com.xml")));
    expect(outlook).toMatchObject({ reporter: "Outlook.com", policyDomain: "example.com" });
    expect(outlook.records).toEqual([
      { sourceIp: "100.24.188.149", count: 1, headerFrom: "example.com", dkim: "fail", spf: "fail" },
    ]);
    const fastmail = parseAggregateXml(decompressReport(fixture("fastmail.com.xml.gz")));
    expect(fastmail).toMatchObject({ reporter: "FastMail Pty Ltd", reportId: "102675056" });
    expect(fastmail.begin.toISOString()).toBe("2018-01-16T00:00:00.000Z");
    expect(fastmail.records[0]).toMatchObject({ sourceIp: "104.195.80.20", headerFrom: "example.com" });
    const zip = parseAggregateXml(decompressReport(fixture("infonacot.xml.zip")));
    expect(zip).toMatchObject({ reporter: "XYZ Corporation", reportId: "2940" });
    expect(zip.records[0]?.sourceIp).toBe("148.243.137.254");
  });

  it("finds Google's zip in the message as delivered", async () => {
    const read = await readDmarcReport(fixture("google.com-report.eml"));
    expect(read?.ok && read.report).toMatchObject({ reporter: "google.com", policyDomain: "borschow.com" });
  });

  it("finds a report sent as the message body itself (RFC 7489 section 7.2.1.1)", async () => {
    const message = (type: string, encoding: string, body: string) =>
      Buffer.from(
        `From: reports@receiver.example\r\nTo: dmarc@bounces.example.com\r\nSubject: Report\r\n` +
          `MIME-Version: 1.0\r\nContent-Type: ${type}\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}\r\n`,
      );
    const gz = await readDmarcReport(
      message("application/gzip", "base64", fixture("fastmail.com.xml.gz").toString("base64")),
    );
    expect(gz?.ok && gz.report.reporter).toBe("FastMail Pty Ltd");
    const xml = await readDmarcReport(message("text/xml", "7bit", fixture("outlook.com.xml").toString()));
    expect(xml?.ok && xml.report.reporter).toBe("Outlook.com");
  });
});

describe("DMARC aggregate reports: hostile input is refused, never expanded", () => {
  it("refuses a DTD: internal entities (billion laughs) and external ones (XXE)", () => {
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">]>`;
    expect(refusal(() => parseAggregateXml(reportXml(row("192.0.2.1", 1, "pass", "pass"), laughs)))).toBe(
      "dtd_refused",
    );
    const xxe = `<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`;
    const withRef = reportXml(row("192.0.2.1", 1, "pass", "pass"), xxe)
      .toString()
      .replace("r1", "&xxe;");
    expect(refusal(() => parseAggregateXml(Buffer.from(withRef)))).toBe("dtd_refused");
    expect(refusal(() => parseAggregateXml(Buffer.from(withRef.replace("<!DOCTYPE", "<!doctype"))))).toBe(
      "dtd_refused",
    );
  });

  it("keeps an undeclared entity reference as text, never resolving it", () => {
    const xml = reportXml(row("192.0.2.1", 1, "pass", "pass"))
      .toString()
      .replace("r1", "&ext;&#x41;");
    expect(parseAggregateXml(Buffer.from(xml)).reportId).toBe("&ext;&#x41;");
  });

  it("refuses malformed XML and documents that are not reports", () => {
    expect(refusal(() => parseAggregateXml(Buffer.from("<feedback><record></feedback>")))).toBe(
      "malformed_xml",
    );
    expect(refusal(() => parseAggregateXml(Buffer.from("\u0000\u00ff garbage")))).toBe("malformed_xml");
    expect(refusal(() => parseAggregateXml(Buffer.from("<html><body>hi</body></html>")))).toBe(
      "not_a_dmarc_report",
    );
  });

  it("skips rows with a bad address or count and keeps the rest", () => {
    const xml = reportXml(
      row("not-an-ip", 5, "pass", "pass") +
        row("192.0.2.1", -3, "pass", "pass") +
        row("2001:db8::1", 2, "fail", "pass"),
    );
    expect(parseAggregateXml(xml).records).toEqual([
      { sourceIp: "2001:db8::1", count: 2, headerFrom: "shop.test", dkim: "fail", spf: "pass" },
    ]);
  });

  it("stops gzip and zip bombs at the size limit, whatever the archive claims", () => {
    const bomb = Buffer.alloc(MAX_XML_BYTES + 1, 0x20);
    expect(refusal(() => decompressReport(gzipSync(bomb)))).toBe("too_large");
    const zip = Buffer.from(zipSync({ "report.xml": bomb }, { level: 9 }));
    // Lie about the size in the local header: the limit holds on what inflates, not on what is claimed.
    zip.writeUInt32LE(100, 22);
    expect(refusal(() => decompressReport(zip))).toBe("too_large");
    expect(refusal(() => decompressReport(Buffer.concat([zip.subarray(0, 40), Buffer.alloc(10)])))).toBe(
      "bad_archive",
    );
    expect(refusal(() => decompressReport(gzipSync(bomb).subarray(0, 500)))).toBe("bad_archive");
    expect(refusal(() => parseAggregateXml(bomb))).toBe("too_large");
  });

  it("treats a bounce (multipart/report) as no DMARC report at all", async () => {
    const dsn = readFileSync(new URL("../../bounces/fixtures/rfc3464-a1-simple.eml", import.meta.url));
    expect(await findReportPayload(dsn)).toBeUndefined();
    expect(await readDmarcReport(Buffer.from("not mail at all"))).toBeUndefined();
  });

  it("takes an untyped attachment for a report only by its name", async () => {
    const withAttachment = (filename: string, content: Buffer) =>
      Buffer.from(
        "From: a@receiver.example\r\nTo: dmarc@bounces.example.com\r\nSubject: Out of office\r\n" +
          'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\n' +
          "Content-Type: text/plain\r\n\r\nAway until Monday.\r\n--b\r\n" +
          `Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="${filename}"\r\n` +
          `Content-Transfer-Encoding: base64\r\n\r\n${content.toString("base64")}\r\n--b--\r\n`,
      );
    expect(await readDmarcReport(withAttachment("menu.pdf", Buffer.from("%PDF-1.4")))).toBeUndefined();
    const named = await readDmarcReport(withAttachment("r.xml.gz", fixture("fastmail.com.xml.gz")));
    expect(named?.ok && named.report.reporter).toBe("FastMail Pty Ltd");
  });
});
