import { loadConfig } from "@mailroom/core/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../../test/support/dns-server.ts";
import { type CountingSmtpSink, startCountingSink } from "../../../../test/support/smtp-sinks.ts";
import { createDirectTransport } from "../direct.ts";
import type { MailTransport, OutboundMessage } from "../types.ts";
import { withSimulator } from "./index.ts";

// The simulator in front of the direct transport (MX lookups through a DNS server that counts queries). The
// simulator domain is even published with an MX pointing at the sink: a leak would show in DNS and at the sink.
const SIM = "simulator.mailroom.invalid";

let db: TestDatabase;
let dns: TestDnsServer;
let sink: CountingSmtpSink;
let direct: MailTransport;
let transport: MailTransport;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startCountingSink({ host: "127.0.0.1" });
  for (const domain of [SIM, "customer.test"]) {
    dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: `mx.${domain}` }]);
    dns.setRecords(`mx.${domain}`, [{ type: "A", address: "127.0.0.1" }]);
  }
  direct = createDirectTransport({
    dnsServers: [dns.address],
    dnsCacheSeconds: 0,
    heloName: "out.mailroom.test",
    port: sink.port,
    connectTimeoutMs: 5_000,
    allowedCidrs: ["127.0.0.0/8"],
    shaping: loadConfig({}).shaping,
  });
  transport = withSimulator(direct, { pool: db.pool, domain: SIM, delaySeconds: 0 });
}, 60_000);
afterAll(async () => {
  await transport?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

function message(to: string[], attempt: number): OutboundMessage {
  const raw = Buffer.from(
    `From: app@sender.test\r\nTo: ${to.join(", ")}\r\nSubject: Order 7\r\nMessage-ID: <s1@sender.test>\r\n\r\nHello.\r\n`,
  );
  return {
    envelope: { from: (r) => `bounce+${r.split("@")[0]?.replace(/\W/g, "")}@bounces.sender.test`, to },
    raw,
    messageId: "<s1@sender.test>",
    attempt,
  };
}

describe("the simulator in front of a real transport", () => {
  it("answers simulator recipients itself, in order, and sends only the others to DNS and SMTP", async () => {
    const to = [`delivered@${SIM}`, "real@customer.test", `soft-bounced+x@${SIM}`, `Delayed@${SIM}`];
    const first = await transport.send(message(to, 1));
    expect(first.map((r) => [r.recipient, r.status, r.code])).toEqual([
      [`delivered@${SIM}`, "accepted", 250],
      ["real@customer.test", "accepted", 250],
      [`soft-bounced+x@${SIM}`, "temporary", 451],
      [`Delayed@${SIM}`, "accepted", 250],
    ]);
    expect(first[1]?.mx).toBe(`mx.customer.test`);
    const retry = await transport.send(message([`soft-bounced+x@${SIM}`], 2));
    expect(retry).toMatchObject([{ status: "accepted", code: 250 }]);
    expect(sink.messages.map((m) => m.envelope.to)).toEqual([["real@customer.test"]]);
    expect(dns.queryCount(SIM)).toBe(0);
    expect(dns.queryCount(`mx.${SIM}`)).toBe(0);
    expect(dns.queryCount("customer.test")).toBeGreaterThan(0);
  });

  it("after the record, stores one report per bounced@, complained@ and out-of-office@ copy it accepted", async () => {
    const to = [`bounced@${SIM}`, `complained@${SIM}`, `out-of-office@${SIM}`, `delivered@${SIM}`];
    const outbound = message(to, 1);
    const results = await transport.send(outbound);
    // A bounced@ refused this time (as if by a 4xx of the real hop) gets no later report.
    const refused = { recipient: `bounced+refused@${SIM}`, status: "temporary" as const, response: "451" };
    await transport.afterRecord?.(outbound, [...results, refused]);
    const { rows } = await db.pool.query<{
      rcpt_to: string[];
      remote_address: string;
      mail_from: string | null;
    }>("select rcpt_to, remote_address, mail_from from inbound_reports order by rcpt_to");
    expect(rows).toEqual(
      ["bounced", "complained", "outofoffice"].map((local) => ({
        rcpt_to: [`bounce+${local}@bounces.sender.test`],
        remote_address: "mailbox-simulator",
        mail_from: null,
      })),
    );
    const jobs = await db.pool.query<{ n: string }>(
      "select count(*) as n from graphile_worker.jobs where task_identifier = 'process_report'",
    );
    expect(Number(jobs.rows[0]?.n)).toBe(3);
  });

  it("is not there when the simulator is off", () => {
    expect(withSimulator(direct, { pool: db.pool, domain: undefined, delaySeconds: 0 })).toBe(direct);
  });
});
