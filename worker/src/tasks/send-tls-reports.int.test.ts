import { gunzipSync } from "node:zlib";
import { createDomain } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { createTlsRecorder, type TlsOutcome } from "@mailroom/core/tls-reports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { type SmtpSink, startSmtpSink } from "../../../test/support/smtp-sink.ts";
import { startWorkerStack, TEST_KEK } from "../../../test/support/stack.ts";
import { tlsReportErrors } from "../../../test/support/tlsrpt-schema.ts";
import { until } from "../../../test/support/wait.ts";

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  const { key } = await createKey(db.pool, { account: "postmaster", scopes: ["send"], expires: "never" });
  const domain = await createDomain(db.pool, TEST_KEK, { account: "postmaster", name: "reports.test" });
  await markDomainVerified(db.pool, domain.id);
  worker = await startWorkerStack(db, sink.url, {
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_TLSRPT_FROM: "tls-reports@reports.test",
    MAILROOM_TLSRPT_KEY_ID: key.keyId,
    MAILROOM_TLSRPT_ORGANIZATION: "Mailroom Worker Test",
  });
});
afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
const dane = (policyDomain: string): TlsOutcome => ({
  mechanism: "dane",
  policyDomain,
  policyType: "tlsa",
  policyStrings: ["3 1 1 0123456789abcdef"],
  enforced: true,
  mxHost: `mx.${policyDomain}`,
  result: "success",
  tls: true,
  verified: true,
});

describe("the send_tls_reports job", () => {
  it("mails yesterday's report through the worker's own delivery and drops counts past 30 days", async () => {
    const record = (tls: TlsOutcome, at: Date) =>
      createTlsRecorder(db.pool)(
        "postmaster",
        [{ recipient: "a@x.test", status: "accepted", response: "", tls }],
        at,
      );
    await record(dane("receiver.test"), daysAgo(1));
    await record(dane("old.test"), daysAgo(40));
    dns.setTxt("_smtp._tls.receiver.test", ["v=TLSRPTv1; rua=mailto:tls@receiver.test"]);

    await db.pool.query(`select graphile_worker.add_job('send_tls_reports', '{}'::json)`);

    const [mail] = await sink.waitFor(1, 20_000);
    expect(mail?.envelope.to).toEqual(["tls@receiver.test"]);
    const content = mail?.parsed.attachments[0]?.content as ArrayBuffer;
    const report = JSON.parse(gunzipSync(Buffer.from(content)).toString("utf8"));
    expect(tlsReportErrors(report)).toEqual([]);
    expect(report).toMatchObject({
      "organization-name": "Mailroom Worker Test",
      policies: [
        {
          policy: {
            "policy-type": "tlsa",
            "policy-domain": "receiver.test",
            "mx-host": ["mx.receiver.test"],
          },
          summary: { "total-successful-session-count": 1, "total-failure-session-count": 0 },
        },
      ],
    });
    const old = await until(
      async () =>
        (await db.pool.query("select 1 from tls_sessions where policy_domain = 'old.test'")).rowCount,
      (count) => count === 0,
    );
    expect(old).toBe(0);
    const sent = await until(
      async () => (await worker.metrics.tlsReportsSent.get()).values,
      (values) => values.length > 0,
    );
    expect(sent).toEqual([expect.objectContaining({ labels: { result: "sent" }, value: 1 })]);
  });

  it("captures the reports of a sandbox account, as any of its mail", async () => {
    await db.pool.query("update accounts set sandbox = true where account = 'postmaster'");
    await createTlsRecorder(db.pool)(
      "postmaster",
      [{ recipient: "a@sandboxed.test", status: "accepted", response: "", tls: dane("sandboxed.test") }],
      daysAgo(1),
    );
    dns.setTxt("_smtp._tls.sandboxed.test", ["v=TLSRPTv1; rua=mailto:tls@sandboxed.test"]);
    await db.pool.query(`select graphile_worker.add_job('send_tls_reports', '{}'::json)`);
    const email = await until(
      async () =>
        (
          await db.pool.query<{ sandbox: boolean; status: string }>(
            `select e.sandbox, e.status from tls_report_sends s join tls_reports r using (report_id)
             join emails e on e.id = s.email_id where r.policy_domain = 'sandboxed.test'`,
          )
        ).rows[0],
      (row) => row?.status === "delivered",
      20_000,
    );
    expect(email).toEqual({ sandbox: true, status: "delivered" });
    expect(sink.messages.map((m) => m.envelope.to)).toEqual([["tls@receiver.test"]]);
  });
});
