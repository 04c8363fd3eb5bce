import { deriveVerpKey } from "@mailroom/core/bounces";
import { loadConfig } from "@mailroom/core/config";
import { acceptEmails, listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { createLogger, createWorkerMetrics } from "@mailroom/core/telemetry";
import type { TlsOutcome } from "@mailroom/core/tls-reports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { type SmtpSink, startSmtpSink } from "../../../test/support/smtp-sink.ts";
import { TEST_KEK } from "../../../test/support/stack.ts";
import { until } from "../../../test/support/wait.ts";
import { startWorker, type WorkerHandle } from "../runner.ts";
import { createSigner } from "../signing.ts";
import { createTransport } from "../transports/index.ts";
import type { MailTransport } from "../transports/types.ts";

// The TLS-checking transports are another change (issue 32 items 1-2): here the real relay transport hands
// the mail to a real SMTP sink, and each recipient's result carries the outcome such a transport reports.
const outcomeFor = (recipient: string): TlsOutcome =>
  recipient.startsWith("expired")
    ? {
        mechanism: "mta-sts",
        policyDomain: "receiver.test",
        policyType: "sts",
        policyStrings: ["version: STSv1", "mode: testing", "mx: mx.receiver.test", "max_age: 600"],
        enforced: false,
        mxHost: "mx.receiver.test",
        receivingIp: "192.0.2.25",
        result: "certificate-expired",
        tls: true,
        verified: false,
        detail: "certificate has expired",
      }
    : recipient.startsWith("broken")
      ? // A result type outside RFC 8460's list, as a faulty transport could report.
        { ...outcomeFor("ok"), result: "not-a-result" as TlsOutcome["result"] }
      : {
          mechanism: "opportunistic",
          policyDomain: "receiver.test",
          policyType: "no-policy-found",
          enforced: false,
          mxHost: "mx.receiver.test",
          receivingIp: "192.0.2.25",
          result: "success",
          tls: true,
          verified: false,
        };

let db: TestDatabase;
let sink: SmtpSink;
let worker: WorkerHandle;
let keyId: string;
const metrics = createWorkerMetrics();

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  keyId = (await createKey(db.pool, { account: "tls", scopes: ["send"], expires: "never" })).key.keyId;
  const config = loadConfig({ DATABASE_URL: db.url, MAILROOM_SMTP_URL: sink.url });
  const relay = createTransport(config);
  const transport: MailTransport = {
    send: async (message) => (await relay.send(message)).map((r) => ({ ...r, tls: outcomeFor(r.recipient) })),
    close: () => relay.close(),
  };
  worker = await startWorker(
    {
      config,
      pool: db.pool,
      logger: createLogger({ level: "silent", name: "test-worker" }),
      metrics,
      transport,
      signer: createSigner(db.pool, TEST_KEK),
      verpKey: deriveVerpKey(TEST_KEK),
      kek: TEST_KEK,
    },
    { pollIntervalMs: 200 },
  );
});
afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await db?.drop();
});

const send = async (to: string[]) => {
  const [result] = await acceptEmails(db.pool, { hostname: "test" }, [
    acceptItem("tls", keyId, { draft: { to } }),
  ]);
  return String(result?.messageId);
};
const delivered = (id: string) =>
  until(
    () => listEvents(db.pool, id),
    (events) => events.some((e) => e.type === "delivered"),
    15_000,
  );
const sessions = async () =>
  (
    await db.pool.query<{ result_type: string; sessions: string; failure_reason: string }>(
      `select result_type, sessions, failure_reason from tls_sessions
       where policy_domain = 'receiver.test' order by result_type`,
    )
  ).rows;

describe("a delivery attempt's TLS outcomes", () => {
  it("are on the attempt's timeline event and counted once per session for the day's report", async () => {
    const id = await send(["ok1@receiver.test", "ok2@receiver.test", "expired@receiver.test"]);
    const events = await delivered(id);
    const event = events.find((e) => e.type === "delivered");
    expect(event?.detail.tls).toEqual([
      expect.objectContaining({
        mx: "mx.receiver.test",
        mechanism: "opportunistic",
        result: "success",
        verified: false,
        text: "mx.receiver.test: unverified TLS (opportunistic, success)",
      }),
      expect.objectContaining({
        mechanism: "mta-sts",
        result: "certificate-expired",
        text: "mx.receiver.test: unverified TLS (mta-sts, certificate-expired: certificate has expired, policy not enforced)",
      }),
    ]);
    const counted = await until(sessions, (rows) => rows.length === 2);
    expect(counted).toEqual([
      { result_type: "certificate-expired", sessions: "1", failure_reason: "certificate has expired" },
      { result_type: "success", sessions: "1", failure_reason: "" },
    ]);
    const tlsTotal = (await metrics.deliveryTls.get()).values;
    expect(tlsTotal).toContainEqual(
      expect.objectContaining({ labels: { mechanism: "opportunistic", result: "success" }, value: 1 }),
    );
  });

  it("are added up across concurrent attempts", async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => send([`ok${i}@receiver.test`])));
    for (const id of ids) await delivered(id);
    const counted = await until(
      sessions,
      (rows) => rows.find((r) => r.result_type === "success")?.sessions === "13",
    );
    expect(counted.find((r) => r.result_type === "success")?.sessions).toBe("13");
  });

  it("that cannot be counted leave the delivery recorded and are counted as unrecorded", async () => {
    const id = await send(["broken@receiver.test"]);
    const events = await delivered(id);
    expect(events.find((e) => e.type === "delivered")?.detail.tls).toHaveLength(1);
    const unrecorded = await until(
      async () => (await metrics.tlsRecordFailures.get()).values[0]?.value ?? 0,
      (value) => value === 1,
    );
    expect(unrecorded).toBe(1);
    expect((await sessions()).map((r) => r.result_type)).not.toContain("not-a-result");
  });
});
