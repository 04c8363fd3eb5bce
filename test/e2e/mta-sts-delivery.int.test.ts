import { createDomain, makeTxtLookup } from "@mailroom/core/domains";
import { normalizeSendRequest } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { createTestCa } from "@mailroom/core/tls";
import { createTlsRecorder, sendTlsReports } from "@mailroom/core/tls-reports";
import { createSsrfGuard } from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../support/db.ts";
import { startDirectWorker, timelineUntil, tlsSessionCounts } from "../support/direct-delivery.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { type MtaStsServer, startMtaStsServer, stsPolicy } from "../support/mta-sts-server.ts";
import { freePort } from "../support/ports.ts";
import { type CountingSmtpSink, startCountingSink } from "../support/smtp-sinks.ts";
import { TEST_KEK } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// Issue 32 item 1 end to end: the real worker task in direct mode, receivers on 127.0.0.x (one port,
// MAILROOM_DIRECT_MX_PORT) with certificates from a test CA, a real DNS server publishing MX, A and
// _mta-sts TXT records, and an HTTPS policy host (MAILROOM_DIRECT_MTA_STS_PORT).
const RECEIVERS = {
  /** A certificate valid for its MX name. */
  good: { address: "127.0.0.1", names: ["mx.good.test"], expired: false },
  expired: { address: "127.0.0.2", names: ["mx.expired.test"], expired: true },
  mismatch: { address: "127.0.0.3", names: ["other.example"], expired: false },
  /** Valid, but for a domain whose enforced policy names another MX: never connected to. */
  unnamed: { address: "127.0.0.4", names: ["mx.unnamed.test"], expired: false },
  /** Presents a wrong-name certificate to a domain whose policy is only in testing mode. */
  testing: { address: "127.0.0.5", names: ["other.example"], expired: false },
} as const;
type Name = keyof typeof RECEIVERS;

let db: TestDatabase;
let dns: TestDnsServer;
let policyHost: MtaStsServer;
let direct: Awaited<ReturnType<typeof startDirectWorker>>;
const sinks = new Map<Name, CountingSmtpSink>();

beforeAll(async () => {
  db = await createTestDatabase();
  const ca = await createTestCa();
  dns = await startDnsServer();
  const names = Object.keys(RECEIVERS);
  policyHost = await startMtaStsServer(await ca.issue(names.map((n) => `mta-sts.${n}.test`)));
  // One port for every receiver, each on its own loopback address, as MX hosts all listen on 25.
  const port = await freePort();
  for (const [name, receiver] of Object.entries(RECEIVERS) as [Name, (typeof RECEIVERS)[Name]][]) {
    const tls = await ca.issue([...receiver.names], { expired: receiver.expired });
    const sink = await startCountingSink({ host: receiver.address, port, starttls: true, ...tls });
    sinks.set(name, sink);
    const domain = `${name}.test`;
    dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: `mx.${domain}` }]);
    dns.setRecords(`mx.${domain}`, [{ type: "A", address: receiver.address }]);
    dns.setRecords(`mta-sts.${domain}`, [{ type: "A", address: "127.0.0.1" }]);
    dns.setTxt(`_mta-sts.${domain}`, ["v=STSv1; id=20261129a;"]);
    const mode = name === "testing" ? "testing" : "enforce";
    policyHost.setPolicy(
      domain,
      stsPolicy(mode, [name === "unnamed" ? "mx.elsewhere.test" : `mx.${domain}`]),
    );
  }
  direct = await startDirectWorker(db, {
    dnsServer: dns.address,
    mxPort: port,
    mtaStsPort: policyHost.port,
    caCert: ca.cert,
  });
}, 60_000);
afterAll(async () => {
  await direct?.stop();
  for (const sink of sinks.values()) await sink.close();
  await policyHost?.close();
  await dns?.close();
  await db?.drop();
});

const emailRow = async (id: string) =>
  (
    await db.pool.query<{ status: string; failure_reason: string | null; last_smtp_response: string }>(
      "select status, failure_reason, last_smtp_response from emails where id = $1",
      [id],
    )
  ).rows[0];

describe("MTA-STS enforce, through the worker", () => {
  it("delivers to a named MX over TLS with a certificate valid for its name", async () => {
    const id = await direct.send({ to: ["ann@good.test"], subject: "to a good MX" });
    const events = await timelineUntil(db, id, "delivered");
    expect(events.find((e) => e.type === "delivered")?.detail.tls).toEqual([
      expect.objectContaining({
        mx: "mx.good.test",
        mechanism: "mta-sts",
        result: "success",
        verified: true,
        enforced: true,
      }),
    ]);
    const received = sinks.get("good")?.messages ?? [];
    expect(received.map((m) => [m.envelope.to, m.secure])).toEqual([[["ann@good.test"], true]]);
  });

  it.each([
    ["an expired certificate", "expired", "certificate-expired", /the certificate has expired/],
    [
      "a certificate for another name",
      "mismatch",
      "certificate-host-mismatch",
      /the certificate is not valid for the host name/,
    ],
    ["an MX host the policy does not name", "unnamed", "validation-failure", /not named by the policy/],
  ] as const)("defers on %s, then fails with the reason, having sent nothing", async (_, name, type, why) => {
    const id = await direct.send({ to: [`bob@${name}.test`], subject: `to ${name}` });
    const events = await timelineUntil(db, id, "failed");
    const prefix = `bob@${name}.test: MTA-STS policy of ${name}.test (enforce): mx.${name}.test: `;
    const deferred = events.filter((e) => e.type === "deferred");
    expect(deferred.length).toBeGreaterThanOrEqual(1);
    for (const event of [...deferred, events.at(-1)]) {
      const response = String(event?.detail.response);
      expect(response.startsWith(prefix), response).toBe(true);
      expect(response).toMatch(why);
      expect(event?.detail.tls).toEqual([expect.objectContaining({ result: type, enforced: true })]);
    }
    expect(events.at(-1)).toMatchObject({ type: "failed", detail: { reason: "retries_exhausted" } });
    const row = await emailRow(id);
    expect(row).toMatchObject({ status: "failed", failure_reason: "retries_exhausted" });
    expect(row?.last_smtp_response).toMatch(why);
    expect(sinks.get(name)?.messages).toHaveLength(0);
    if (name === "unnamed") expect(sinks.get(name)?.connections).toBe(0);
    // Every attempt's session counts as a failure of the domain's policy in the day's TLS report.
    const counts = await tlsSessionCounts(db, `${name}.test`, deferred.length + 1);
    expect(counts).toEqual([
      { policy_type: "sts", result_type: type, sessions: String(deferred.length + 1) },
    ]);
  });
});

describe("MTA-STS testing, through the worker", () => {
  it("delivers despite a wrong-name certificate, and the day's TLS report counts the failure", async () => {
    const id = await direct.send({ to: ["cy@testing.test"], subject: "testing mode" });
    const events = await timelineUntil(db, id, "delivered");
    const tls = events.find((e) => e.type === "delivered")?.detail.tls as { text: string }[];
    expect(tls).toEqual([
      expect.objectContaining({ mechanism: "mta-sts", result: "certificate-host-mismatch", enforced: false }),
    ]);
    expect(tls[0]?.text).toMatch(/policy not enforced\)$/);
    expect(sinks.get("testing")?.messages.map((m) => m.envelope.to)).toEqual([["cy@testing.test"]]);
    expect(await tlsSessionCounts(db, "testing.test", 1)).toEqual([
      { policy_type: "sts", result_type: "certificate-host-mismatch", sessions: "1" },
    ]);
  });
});

describe("emails exempt from receivers' policies, through the worker", () => {
  it("`TLS-Required: No` (RFC 8689 §5): delivered despite an enforced policy's failure, reported", async () => {
    const { draft } = normalizeSendRequest({
      from: "app@acme.test",
      to: "dee@mismatch.test",
      subject: "no TLS needed",
      text: "Public announcement.",
      headers: { "TLS-Required": "No" },
    });
    const id = await direct.send(draft);
    const events = await timelineUntil(db, id, "delivered");
    const [tls] = (events.find((e) => e.type === "delivered")?.detail.tls ?? []) as Record<string, unknown>[];
    expect(tls).toMatchObject({
      mechanism: "mta-sts",
      result: "certificate-host-mismatch",
      enforced: false,
      exempt: "tls-required-no",
    });
    expect(tls?.text).toMatch(/policy not applied: TLS-Required: No \(RFC 8689\)\)$/);
    const received = sinks.get("mismatch")?.messages ?? [];
    expect(received.map((m) => [m.envelope.to, m.secure])).toEqual([[["dee@mismatch.test"], true]]);
    expect(received[0]?.raw.toString()).toMatch(/^TLS-Required: No\r$/im);
  });

  it("a TLS report (RFC 8460 §5.3): delivered despite the receiver's enforced policy, not counted", async () => {
    // The reporting account, its verified domain and key (ADR 0058), and a finished day with one session of
    // reported.test, whose TLS-RPT record sends its reports to a mailbox at expired.test.
    const domain = await createDomain(db.pool, TEST_KEK, { account: "postmaster", name: "reports.test" });
    await markDomainVerified(db.pool, domain.id);
    const { key } = await createKey(db.pool, { account: "postmaster", scopes: ["send"], expires: "never" });
    await createTlsRecorder(db.pool)(
      "postmaster",
      [
        {
          recipient: "a@reported.test",
          status: "accepted",
          response: "250",
          tls: {
            mechanism: "opportunistic",
            policyDomain: "reported.test",
            policyType: "no-policy-found",
            enforced: false,
            result: "success",
            tls: true,
            verified: false,
          },
        },
      ],
      new Date("2031-03-10T08:00:00Z"),
    );
    dns.setTxt("_smtp._tls.reported.test", ["v=TLSRPTv1; rua=mailto:tlsrpt@expired.test"]);
    const run = await sendTlsReports(
      {
        pool: db.pool,
        lookupTxt: makeTxtLookup({ servers: [dns.address], timeoutMs: 2_000, tries: 1 }),
        guard: createSsrfGuard({ allowedCidrs: [] }),
        sender: {
          from: "tls-reports@reports.test",
          keyId: key.keyId,
          submitter: "reports.test",
          organizationName: "Mailroom Test",
          contactInfo: "tls-reports@reports.test",
        },
        allowUnverifiedFrom: false,
        postTimeoutMs: 5_000,
      },
      new Date("2031-03-11T00:10:00Z"),
    );
    expect(run).toMatchObject({ made: 1, sent: 1, failed: 0 });
    const { rows } = await db.pool.query<{ email_id: string }>("select email_id from tls_report_sends");
    const id = rows[0]?.email_id as string;
    const report = await timelineUntil(db, id, "delivered");
    expect(report.map((e) => e.type)).toEqual(["queued", "sending", "delivered"]);
    const [tls] = (report.at(-1)?.detail.tls ?? []) as Record<string, unknown>[];
    expect(tls).toMatchObject({ mechanism: "mta-sts", result: "certificate-expired", exempt: "tls-report" });
    expect(tls?.text).toMatch(/policy not applied: a TLS report \(RFC 8460 §5\.3\)\)$/);
    const received = sinks.get("expired")?.messages ?? [];
    expect(received.map((m) => m.envelope.to)).toEqual([["tlsrpt@expired.test"]]);
    // Its own session is not in the next report's counts (the run purged the test's earlier, far older ones):
    // the sessions of expired.test are those of a later, ordinary email's attempts.
    const later = await direct.send({ to: ["eve@expired.test"], subject: "a later, ordinary email" });
    const events = await timelineUntil(db, later, "failed");
    const attempts = events.filter((e) => e.type === "deferred" || e.type === "failed").length;
    await deliveriesDone();
    expect(await tlsSessionCounts(db, "expired.test", attempts)).toEqual([
      { policy_type: "sts", result_type: "certificate-expired", sessions: String(attempts) },
    ]);
    const metric = (await direct.worker.metrics.deliveryTls.get()).values;
    expect(metric).toContainEqual(
      expect.objectContaining({ labels: { mechanism: "mta-sts", result: "certificate-expired" } }),
    );
  });
});

/** Once no deliver job is left, every attempt's TLS sessions are counted (the task counts them before it ends). */
const deliveriesDone = () =>
  until(
    async () =>
      (
        await db.pool.query<{ n: string }>(
          "select count(*) as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'deliver'",
        )
      ).rows[0]?.n,
    (n) => n === "0",
  );
