import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { createDomain, makeTxtLookup } from "@mailroom/core/domains";
import { listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { createTlsRecorder, sendTlsReports, type TlsOutcome } from "@mailroom/core/tls-reports";
import { createSsrfGuard } from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { startWorkerStack, TEST_KEK } from "../support/stack.ts";
import { tlsReportErrors } from "../support/tlsrpt-schema.ts";
import { until } from "../support/wait.ts";

interface Posted {
  path: string;
  contentType: string | undefined;
  body: Buffer;
}

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let receiver: Server;
let ca: Buffer;
let certDir: string;
let keyId: string;
let origin: string;
const posted: Posted[] = [];
let answer = 200;

// Days far from the test's real clock: the worker's own hourly run never finds them due.
const DAY = "2031-03-10";
const at = (time: string) => new Date(`${DAY}T${time}Z`);
const NEXT_MORNING = new Date("2031-03-11T00:10:00Z");

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  certDir = await mkdtemp(path.join(os.tmpdir(), "mailroom-tlsrpt-"));
  const tls = await ensureLocalCertificates(certDir, ["localhost", "127.0.0.1"]);
  ca = await readFile(tls.caCertFile);
  receiver = createServer(
    { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        posted.push({
          path: req.url ?? "",
          contentType: req.headers["content-type"],
          body: Buffer.concat(chunks),
        });
        res.writeHead(answer).end();
      });
    },
  );
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const key = await createKey(db.pool, { account: "postmaster", scopes: ["send"], expires: "never" });
  keyId = key.key.keyId;
  const domain = await createDomain(db.pool, TEST_KEK, { account: "postmaster", name: "reports.test" });
  await markDomainVerified(db.pool, domain.id);
  worker = await startWorkerStack(db, sink.url);
});
afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await sink?.close();
  await dns?.close();
  await db?.drop();
  await rm(certDir, { recursive: true, force: true });
});

const sender = () => ({
  from: "tls-reports@reports.test",
  keyId,
  submitter: "reports.test",
  organizationName: "Mailroom Test",
  contactInfo: "tls-reports@reports.test",
});
const run = (now: Date, allowedCidrs = ["127.0.0.0/8"]) =>
  sendTlsReports(
    {
      pool: db.pool,
      lookupTxt: makeTxtLookup({ servers: [dns.address], timeoutMs: 2_000, tries: 1 }),
      guard: createSsrfGuard({ allowedCidrs }),
      sender: sender(),
      allowUnverifiedFrom: false,
      postTimeoutMs: 5_000,
      ca,
    },
    now,
  );

let recorder: ReturnType<typeof createTlsRecorder> | undefined;
// Each outcome as one accepted recipient's, of one account (the transit counts need one).
const record = () => {
  recorder ??= createTlsRecorder(db.pool);
  const write = recorder;
  return (outcomes: TlsOutcome[], at: Date) =>
    write(
      "reports",
      outcomes.map((tls) => ({
        recipient: `a@${tls.policyDomain}`,
        status: "accepted",
        response: "250",
        tls,
      })),
      at,
    );
};
const outcome = (domain: string, over: Partial<TlsOutcome> = {}): TlsOutcome => ({
  mechanism: "mta-sts",
  policyDomain: domain,
  policyType: "sts",
  policyStrings: ["version: STSv1", "mode: enforce", `mx: mx.${domain}`, "max_age: 86400"],
  enforced: true,
  mxHost: `mx.${domain}`,
  receivingIp: "192.0.2.25",
  result: "success",
  tls: true,
  verified: true,
  ...over,
});
const sends = async (domain: string) =>
  (
    await db.pool.query<{
      rua: string;
      status: string;
      attempts: number;
      last_error: string | null;
      email_id: string | null;
    }>(
      `select s.rua, s.status, s.attempts, s.last_error, s.email_id from tls_report_sends s
       join tls_reports r using (report_id) where r.policy_domain = $1 order by s.rua`,
      [domain],
    )
  ).rows;
const gunzipJson = (bytes: Buffer) =>
  JSON.parse(gunzipSync(bytes).toString("utf8")) as Record<string, unknown>;

describe("the daily TLS report (RFC 8460)", () => {
  it("goes to the published mailto and https URIs, valid against the RFC's schema", async () => {
    dns.setTxt("_smtp._tls.receiver.test", [`v=TLSRPTv1; rua=mailto:tls@receiver.test,${origin}/tlsrpt`]);
    for (let i = 0; i < 3; i += 1) await record()([outcome("receiver.test")], at("08:00:00"));
    await record()(
      [
        outcome("receiver.test", {
          result: "certificate-expired",
          verified: false,
          detail: "certificate has expired",
        }),
      ],
      at("23:59:59"),
    );
    // No `_smtp._tls` record: counted, never reported. A session of the next day: not reported yet.
    await record()([outcome("quiet.test")], at("12:00:00"));
    await record()([outcome("quiet.test")], NEXT_MORNING);

    expect(await run(NEXT_MORNING)).toEqual({ made: 1, withoutRua: 1, lookupErrors: 0, sent: 2, failed: 0 });

    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ path: "/tlsrpt", contentType: "application/tlsrpt+gzip" });
    const report = gunzipJson((posted[0] as Posted).body);
    expect(tlsReportErrors(report)).toEqual([]);
    expect(report).toMatchObject({
      "organization-name": "Mailroom Test",
      "contact-info": "tls-reports@reports.test",
      "report-id": "20310310.receiver.test@reports.test",
      "date-range": { "start-datetime": "2031-03-10T00:00:00Z", "end-datetime": "2031-03-10T23:59:59Z" },
      policies: [
        {
          policy: { "policy-type": "sts", "policy-domain": "receiver.test", "mx-host": ["mx.receiver.test"] },
          summary: { "total-successful-session-count": 3, "total-failure-session-count": 1 },
          "failure-details": [
            {
              "result-type": "certificate-expired",
              "receiving-mx-hostname": "mx.receiver.test",
              "receiving-ip": "192.0.2.25",
              "failed-session-count": 1,
              "failure-reason-code": "certificate has expired",
            },
          ],
        },
      ],
    });

    // The mailto report is an email of the reporting key's account, delivered by the worker like any other.
    const [mail] = await sink.waitFor(1, 20_000);
    expect(mail?.envelope.to).toEqual(["tls@receiver.test"]);
    const parsed = mail?.parsed;
    expect(parsed?.subject).toBe(
      "Report Domain: receiver.test Submitter: reports.test Report-ID: <20310310.receiver.test@reports.test>",
    );
    const header = (name: string) => parsed?.headers.find((h) => h.key === name)?.value;
    expect(header("content-type")).toMatch(/^multipart\/report; report-type="tlsrpt";/);
    expect(header("tls-report-domain")).toBe("receiver.test");
    expect(header("tls-report-submitter")).toBe("reports.test");
    expect(header("dkim-signature")).toMatch(/\bd=reports\.test\b/);
    const attachment = parsed?.attachments[0];
    expect(attachment?.mimeType).toBe("application/tlsrpt+gzip");
    expect(attachment?.filename).toBe("reports.test!receiver.test!1930867200!1930953599.json.gz");
    const mailed = gunzipJson(Buffer.from(attachment?.content as ArrayBuffer));
    expect(tlsReportErrors(mailed)).toEqual([]);
    expect(mailed).toEqual(report);

    const rows = await sends("receiver.test");
    expect(rows.map((r) => [r.rua, r.status, r.attempts])).toEqual([
      [`${origin}/tlsrpt`, "sent", 1],
      ["mailto:tls@receiver.test", "sent", 1],
    ]);
    const emailId = rows[1]?.email_id as string;
    const events = await until(
      () => listEvents(db.pool, emailId),
      (e) => e.some((x) => x.type === "delivered"),
      15_000,
    );
    expect(events.map((e) => e.type)).toContain("delivered");
  });

  it("is sent once: a rerun, the same hour or later, sends nothing again", async () => {
    expect(await run(NEXT_MORNING)).toEqual({ made: 0, withoutRua: 0, lookupErrors: 0, sent: 0, failed: 0 });
    expect(await run(new Date("2031-03-11T05:10:00Z"))).toMatchObject({ made: 0, sent: 0 });
    expect(posted).toHaveLength(1);
    expect(sink.messages).toHaveLength(1);
  });

  it("asks DNS again after a failed lookup, and retries a refused POST on the next run", async () => {
    const day = new Date("2031-03-12T00:10:00Z");
    await record()([outcome("flaky.test")], new Date("2031-03-11T10:00:00Z"));
    dns.setTxt("_smtp._tls.flaky.test", [`v=TLSRPTv1; rua=${origin}/flaky`]);
    dns.setFault("_smtp._tls.flaky.test", "servfail");
    expect(await run(day)).toMatchObject({ made: 0, lookupErrors: 1 });
    dns.setFault("_smtp._tls.flaky.test", undefined);
    answer = 503;
    expect(await run(day)).toMatchObject({ made: 1, sent: 0, failed: 1 });
    expect(await sends("flaky.test")).toMatchObject([
      { status: "pending", attempts: 1, last_error: "HTTP 503" },
    ]);
    answer = 200;
    expect(await run(new Date("2031-03-12T01:10:00Z"))).toMatchObject({ made: 0, sent: 1, failed: 0 });
    expect(await sends("flaky.test")).toMatchObject([{ status: "sent", attempts: 2, last_error: null }]);
    expect(posted.map((p) => p.path)).toEqual(["/tlsrpt", "/flaky", "/flaky"]);
  });

  it("reaches no internal address, and sends no email once the reporting key is revoked", async () => {
    const day = new Date("2031-03-13T00:10:00Z");
    await record()([outcome("hostile.test")], new Date("2031-03-12T10:00:00Z"));
    dns.setTxt("_smtp._tls.hostile.test", [
      "v=TLSRPTv1; rua=https://169.254.169.254/latest,mailto:tls@hostile.test",
    ]);
    await db.pool.query("update api_keys set revoked_at = now() where key_id = $1", [keyId]);
    expect(await run(day)).toMatchObject({ made: 1, sent: 0, failed: 2 });
    const rows = await sends("hostile.test");
    expect(rows.map((r) => [r.status, r.email_id])).toEqual([
      ["pending", null],
      ["pending", null],
    ]);
    expect(rows[0]?.last_error).toMatch(/^refused: /);
    expect(rows[1]?.last_error).toMatch(/revoked/);
    expect(sink.messages).toHaveLength(1);
    expect(posted).toHaveLength(3);
  });
});
