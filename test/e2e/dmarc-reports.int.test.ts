import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { getReportOutcome } from "@mailroom/core/bounces";
import { createKey } from "@mailroom/core/keys";
import { createLogger } from "@mailroom/core/telemetry";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboundReceiver, startInboundReceiver } from "../../smtp/src/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { sendWithNodemailer, sendWithPython } from "../support/reports.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// Issue 29 item 3: receivers' aggregate reports, through the real bounce receiver and the worker's
// `process_report` job, read back through the API. The files are real ones (core/src/domains/dmarc/fixtures).
const MX_HOST = "mx.mailroom.test";
const MAX_BYTES = 256 * 1024;
const FIXTURES = new URL("../../core/src/domains/dmarc/fixtures/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

let db: TestDatabase;
let dns: TestDnsServer;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let inbound: InboundReceiver;
let clock: Date | undefined;
const keys: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_INBOUND_MX_HOST: MX_HOST };
  api = await startApiStack(db, { env, now: () => clock ?? new Date() });
  // Nothing is delivered here: the worker runs for its process_report job. Without its periodic jobs: the
  // fixtures' report days (2018–2024) are past DMARC_RETENTION_DAYS, and a purge run at the turn of a five-minute
  // mark deleted them between their storing and their reading (CI, 2026-11-29).
  worker = await startWorkerStack(db, "smtp://127.0.0.1:9", env, { periodicJobs: false });
  inbound = await startInboundReceiver(
    { pool: db.pool, logger: createLogger({ level: "silent", name: "test" }) },
    { host: "127.0.0.1", port: 0, hostname: MX_HOST, maxBytes: MAX_BYTES },
  );
  for (const [account, domains] of [
    ["shop", ["example.com", "borschow.com"]],
    ["rival", ["rival.test"]],
  ] as const) {
    keys[account] = (await createKey(db.pool, { account, scopes: ["domains"], expires: "never" })).fullKey;
    for (const name of domains) await addVerified(account, name);
  }
}, 60_000);
afterAll(async () => {
  await inbound?.close();
  await worker?.stop();
  await api?.close();
  await dns?.close();
  await db?.drop();
});

type RecordBody = { purpose: string; name: string; value: string; strings: string[]; required: boolean };

/** Adds a domain and publishes its required (DKIM) records on the loopback DNS server, then verifies it. */
async function addVerified(account: string, name: string) {
  const created = await api.request("POST", "/v1/domains", { key: keys[account], body: { name } });
  expect(created.status, created.text).toBe(201);
  const records = created.json.records as RecordBody[];
  for (const r of records.filter((x) => x.required)) dns.setTxt(r.name, r.strings);
  const dmarc = records.find((r) => r.purpose === "dmarc");
  // The suggested record sends reports to the bounce domain, where the receiver below takes them.
  expect(dmarc?.value).toBe(`v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:dmarc@bounces.${name}`);
  const verified = await api.request("POST", `/v1/domains/${name}/verify`, { key: keys[account] });
  expect(verified.json.status, verified.text).toBe("verified");
}

/** A report message as receivers send one: a short text and the report attached. */
async function reportMail(
  to: string,
  attachment: { filename: string; content: Buffer; contentType: string },
) {
  const composer = new MailComposer({
    from: "noreply-dmarc@receiver.example",
    to,
    subject: `Report Domain: example.com Submitter: receiver.example Report-ID: ${attachment.filename}`,
    text: "This is an aggregate report.",
    attachments: [attachment],
  });
  return composer.compile().build();
}

/** Sends a message to the receiver and waits for its process_report job; answers the stored outcome. */
async function deliver(to: string, raw: Buffer, via = sendWithNodemailer) {
  const answer = await via(inbound.port, to, raw);
  expect(answer.code, answer.response).toBe(250);
  const id = answer.reportId as string;
  // The job's time to run is not asserted: the wait is long so a loaded machine cannot fail it.
  const outcome = await until(
    () => getReportOutcome(db.pool, id),
    (found) => found !== undefined && found.status !== "received",
    60_000,
  );
  if (!outcome) throw new Error(`report ${id} is gone`);
  return outcome;
}

interface Source {
  sourceIp: string;
  passRate: number;
}

async function dmarcOf(account: string, domain: string, at: string, days = 7) {
  clock = new Date(at);
  try {
    const res = await api.request("GET", `/v1/domains/${domain}/dmarc?days=${days}`, { key: keys[account] });
    const json = res.json as Record<string, unknown> & { sources: Source[]; failingSources: Source[] };
    return { status: res.status, text: res.text, json };
  } finally {
    clock = undefined;
  }
}

describe("DMARC aggregate reports from real receivers, through the bounce receiver", () => {
  it("stores Outlook.com's XML, FastMail's gzip and a zip, and answers the failing sources", async () => {
    const to = "dmarc@bounces.example.com";
    const outlook = await deliver(
      to,
      await reportMail(to, {
        filename: "outlook.xml",
        content: fixture("outlook.com.xml"),
        contentType: "text/xml",
      }),
    );
    expect(outlook).toMatchObject({
      status: "processed",
      outcome: { kind: "dmarc_aggregate", stored: true },
    });
    const fastmail = await deliver(
      to,
      await reportMail(to, {
        filename: "fastmail.xml.gz",
        content: fixture("fastmail.com.xml.gz"),
        contentType: "application/gzip",
      }),
      sendWithPython,
    );
    expect(fastmail.outcome).toMatchObject({ reporter: "FastMail Pty Ltd", stored: true });
    const zip = await deliver(
      to,
      await reportMail(to, {
        filename: "report.xml.zip",
        content: fixture("infonacot.xml.zip"),
        contentType: "application/zip",
      }),
    );
    expect(zip.outcome).toMatchObject({ reporter: "XYZ Corporation", domains: [{ domain: "example.com" }] });

    const march = await dmarcOf("shop", "example.com", "2024-03-31T12:00:00Z");
    expect(march.status, march.text).toBe(200);
    expect(march.json).toMatchObject({
      domain: "example.com",
      reportAddress: "dmarc@bounces.example.com",
      from: "2024-03-25",
      to: "2024-03-31",
      reports: 1,
      messages: 1,
      passed: 0,
      passRate: 0,
    });
    expect(march.json.failingSources).toEqual([
      {
        sourceIp: "100.24.188.149",
        messages: 1,
        passed: 0,
        dkimAligned: 0,
        spfAligned: 0,
        passRate: 0,
        reporters: ["Outlook.com"],
        lastSeen: "2024-03-30",
      },
    ]);
    const january2018 = await dmarcOf("shop", "example.com", "2018-01-17T00:00:00Z");
    expect(january2018.json.failingSources.map((s) => s.sourceIp)).toEqual(["104.195.80.20"]);
    const september2018 = await dmarcOf("shop", "example.com", "2018-09-14T00:00:00Z");
    expect(september2018.json.sources[0]).toMatchObject({ sourceIp: "148.243.137.254" });
  });

  it("reads Google's report message as delivered, sent to the domain's own bounce address", async () => {
    const google = await deliver("dmarc@bounces.borschow.com", fixture("google.com-report.eml"));
    expect(google).toMatchObject({ status: "processed", outcome: { reporter: "google.com", stored: true } });
    const res = await dmarcOf("shop", "borschow.com", "2019-02-12T12:00:00Z");
    expect(res.json).toMatchObject({ reports: 1, messages: 1, passRate: 0 });
    expect(res.json.failingSources[0]).toMatchObject({
      sourceIp: "92.53.116.102",
      reporters: ["google.com"],
    });
  });

  it("computes pass rates per source and counts a report sent twice once", async () => {
    const at = "2026-11-20T00:00:00Z";
    const begin = Date.parse(at) / 1000;
    const row = (ip: string, count: number, dkim: string, spf: string) =>
      `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated>
      <disposition>none</disposition><dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated></row>
      <identifiers><header_from>example.com</header_from></identifiers></record>`;
    const xml = `<?xml version="1.0"?><feedback><report_metadata><org_name>receiver.example</org_name>
      <report_id>pass-rates-1</report_id><date_range><begin>${begin}</begin><end>${begin + 86_399}</end>
      </date_range></report_metadata><policy_published><domain>example.com</domain><p>none</p></policy_published>
      ${row("192.0.2.10", 90, "pass", "fail")}${row("192.0.2.10", 10, "fail", "pass")}
      ${row("198.51.100.7", 30, "fail", "fail")}${row("2001:db8::25", 5, "pass", "pass")}</feedback>`;
    const to = "dmarc@bounces.example.com";
    const mail = await reportMail(to, {
      filename: "r.xml.gz",
      content: gzipSync(xml),
      contentType: "application/gzip",
    });
    expect((await deliver(to, mail)).status).toBe("processed");
    expect(await deliver(to, mail)).toMatchObject({
      status: "ignored",
      outcome: { stored: false, reason: "duplicate" },
    });
    const res = await dmarcOf("shop", "example.com", "2026-11-21T10:00:00Z", 2);
    expect(res.json).toMatchObject({ reports: 1, messages: 135, passed: 105, passRate: 0.7778 });
    expect(res.json.sources.map((s) => [s.sourceIp, s.passRate])).toEqual([
      ["192.0.2.10", 1],
      ["198.51.100.7", 0],
      ["2001:db8::25", 1],
    ]);
    expect(res.json.sources[0]).toMatchObject({ dkimAligned: 90, spfAligned: 10 });
    expect(res.json.failingSources.map((s) => s.sourceIp)).toEqual(["198.51.100.7"]);
  });
});

describe("hostile DMARC reports: refused or ignored with a reason, never a crash, never another account's data", () => {
  const to = "dmarc@bounces.example.com";
  const xmlMail = (xml: string | Buffer, filename = "r.xml", contentType = "text/xml") =>
    reportMail(to, { filename, content: Buffer.from(xml), contentType });
  const outlookXml = fixture("outlook.com.xml").toString();

  it("refuses a DTD (billion laughs, XXE), malformed XML and bombs, and keeps working", async () => {
    const laughs = outlookXml.replace(
      '<?xml version="1.0"?>',
      '<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
    );
    const xxe = outlookXml
      .replace(
        '<?xml version="1.0"?>',
        '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
      )
      .replace("cfeafefe4129445e8c81018bd9177197", "&x;");
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const cases: [Buffer, string][] = [
      [await xmlMail(laughs.replace("<org_name>Outlook.com", "<org_name>&b;")), "dtd_refused"],
      [await xmlMail(xxe), "dtd_refused"],
      [await xmlMail(outlookXml.slice(0, 700)), "malformed_xml"],
      [await xmlMail("<feedback><nothing/></feedback>"), "not_a_dmarc_report"],
      [await xmlMail(bomb, "bomb.xml.gz", "application/gzip"), "too_large"],
      [await xmlMail(bomb.subarray(0, 2000), "cut.xml.gz", "application/gzip"), "bad_archive"],
    ];
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    for (const [mail, reason] of cases) {
      expect(await deliver(to, mail)).toMatchObject({
        status: "ignored",
        outcome: { stored: false, reason },
      });
    }
    const rows = await db.pool.query(`select reporter from dmarc_reports where reporter like '%&%'`);
    expect(rows.rowCount).toBe(0);
  });

  it("refuses an oversize report at the SMTP door", async () => {
    const big = await xmlMail(`${outlookXml}<!--${"x".repeat(MAX_BYTES)}-->`);
    expect((await sendWithNodemailer(inbound.port, to, big)).code).toBe(552);
  });

  it("keeps each account to its own domains", async () => {
    const before = (await dmarcOf("shop", "example.com", "2024-03-31T12:00:00Z")).json;
    // Shop's report sent to rival's bounce domain: rival does not own example.com; nothing is stored.
    const rivalTo = "dmarc@bounces.rival.test";
    const stray = await reportMail(rivalTo, {
      filename: "r.xml",
      content: Buffer.from(outlookXml.replace("cfeafefe", "stray")),
      contentType: "text/xml",
    });
    expect(await deliver(rivalTo, stray)).toMatchObject({
      status: "ignored",
      outcome: { stored: false, reason: "domain_not_owned", account: "rival", foreign: 1 },
    });
    // A report about rival.test sent to shop's bounce domain reaches nobody's data either.
    const aboutRival = outlookXml.replaceAll("example.com", "rival.test");
    expect(await deliver(to, await xmlMail(aboutRival))).toMatchObject({
      status: "ignored",
      outcome: { reason: "domain_not_owned", account: "shop" },
    });
    expect((await dmarcOf("rival", "rival.test", "2024-03-31T12:00:00Z")).json.messages).toBe(0);
    expect((await dmarcOf("rival", "example.com", "2024-03-31T12:00:00Z")).status).toBe(404);
    expect((await dmarcOf("shop", "example.com", "2024-03-31T12:00:00Z")).json).toEqual(before);
    expect((await dmarcOf("shop", "not a domain", "2024-03-31T12:00:00Z")).status).toBe(400);
  });
});
