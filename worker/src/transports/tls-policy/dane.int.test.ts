import { createHash } from "node:crypto";
import { loadConfig } from "@mailroom/core/config";
import { createTestCa, type TestCa } from "@mailroom/core/tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DnssecDns, dnssecToolsMissing, startDnssecDns } from "../../../../test/support/dnssec-dns.ts";
import { type CountingSmtpSink, startCountingSink } from "../../../../test/support/smtp-sinks.ts";
import { createDirectTransport } from "../direct.ts";
import type { MailTransport, OutboundMessage } from "../types.ts";

const { shaping } = loadConfig({});

// A DNSSEC-signed zone served by nsd and validated by unbound (test/support/dnssec-dns.ts), and receivers on
// 127.0.0.x whose certificates come from a CA nobody trusts: only their TLSA records can vouch for them.
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

let trusted: TestCa;
let untrusted: TestCa;
let dns: DnssecDns;
const sinks = new Map<string, CountingSmtpSink>();
let port = 0;

/** Each receiver: its loopback address, its certificate's CA and names, and its TLSA record's text. */
const RECEIVERS = {
  ee: { address: "127.0.0.1", tlsa: "3 1 1 spki" },
  ee0: { address: "127.0.0.2", tlsa: "3 0 1 cert" },
  ta: { address: "127.0.0.3", tlsa: "2 0 1 ca" },
  bad: { address: "127.0.0.4", tlsa: "3 1 1 other" },
  tawrong: { address: "127.0.0.5", tlsa: "2 0 1 ca" },
} as const;

beforeAll(async () => {
  if (dnssecToolsMissing.length > 0) return;
  trusted = await createTestCa("DANE trust anchor");
  untrusted = await createTestCa("Nobody's CA");
  const other = await untrusted.issue(["unrelated.example"]);
  const records: string[] = [];
  for (const [name, receiver] of Object.entries(RECEIVERS)) {
    const mx = `mx-${name}.dane.test`;
    const ca = receiver.tlsa.startsWith("2") ? trusted : untrusted;
    const cert = await ca.issue(name === "ta" ? [mx] : ["wrong-name.example"]);
    const sink = await startCountingSink({ host: receiver.address, port, starttls: true, ...cert });
    port = sink.port;
    sinks.set(name, sink);
    const [usage, selector, type, what] = receiver.tlsa.split(" ");
    const data = { spki: cert.spki, cert: cert.der, ca: trusted.der, other: other.spki }[what as "spki"];
    records.push(
      `${name} IN MX 10 mx-${name}`,
      `mx-${name} IN A ${receiver.address}`,
      `_${port}._tcp.mx-${name} IN TLSA ${usage} ${selector} ${type} ${sha256(data)}`,
    );
  }
  dns = await startDnssecDns(records);
}, 60_000);
afterAll(async () => {
  for (const sink of sinks.values()) await sink.close();
  await dns?.close();
});

function transport(dnssecValidating: boolean, server = dns.address): MailTransport {
  return createDirectTransport({
    dnsServers: [server],
    dnsCacheSeconds: 0,
    dnssecValidating,
    shaping: { ...shaping, defaults: { ...shaping.defaults, concurrency: 1 } },
    heloName: "out.mailroom.test",
    port,
    connectTimeoutMs: 5_000,
    allowedCidrs: ["127.0.0.0/8"],
  });
}

function message(to: string): OutboundMessage {
  const raw = Buffer.from(`From: app@sender.test\r\nTo: ${to}\r\nSubject: dane\r\n\r\nHello.\r\n`);
  return { envelope: { from: () => "bounces@sender.test", to: [to] }, raw, messageId: "<d@sender.test>" };
}

describe.skipIf(dnssecToolsMissing.length > 0)("DANE (RFC 7672) with a validating resolver", () => {
  it.each([
    ["DANE-EE 3 1 1 (the key)", "ee"],
    ["DANE-EE 3 0 1 (the certificate)", "ee0"],
    ["DANE-TA 2 0 1 (the issuing CA), the certificate naming the MX", "ta"],
  ])("delivers over a certificate nobody else trusts when %s matches", async (_, name) => {
    const mailer = transport(true);
    try {
      const [result] = await mailer.send(message(`u@${name}.dane.test`));
      expect(result?.status).toBe("accepted");
      expect(result?.tls).toMatchObject({
        mechanism: "dane",
        policyType: "tlsa",
        enforced: true,
        result: "success",
        tls: true,
        verified: true,
        mxHost: `mx-${name}.dane.test`,
      });
      expect(result?.tls?.policyStrings?.[0]).toMatch(/^[23] [01] 1 [0-9a-f]{64}$/);
      expect(sinks.get(name)?.messages.at(-1)?.secure).toBe(true);
    } finally {
      await mailer.close();
    }
  });

  it.each([
    ["a key no TLSA record names", "bad"],
    ["a DANE-TA chain whose certificate does not name the MX", "tawrong"],
  ])("fails closed (defers, sends nothing) on %s", async (_, name) => {
    const mailer = transport(true);
    try {
      const [result] = await mailer.send(message(`u@${name}.dane.test`));
      expect(result?.status).toBe("temporary");
      expect(result?.response).toMatch(
        new RegExp(`^DANE TLSA of mx-${name}\\.dane\\.test: .*matches none of the TLSA records`),
      );
      expect(result?.tls).toMatchObject({ mechanism: "dane", result: "tlsa-invalid", enforced: true });
      expect(sinks.get(name)?.messages).toHaveLength(0);
    } finally {
      await mailer.close();
    }
  });

  it("ignores TLSA records when the resolver is not declared validating (opportunistic TLS)", async () => {
    const mailer = transport(false);
    try {
      const [result] = await mailer.send(message("u@bad.dane.test"));
      expect(result?.status).toBe("accepted");
      expect(result?.tls).toMatchObject({ mechanism: "opportunistic", verified: false });
    } finally {
      await mailer.close();
    }
  });

  it("ignores TLSA records answered without the AD bit (falls back to opportunistic TLS)", async () => {
    const mailer = transport(true, dns.authoritative);
    try {
      const [result] = await mailer.send(message("u@bad.dane.test"));
      expect(result?.status).toBe("accepted");
      expect(result?.tls).toMatchObject({ mechanism: "opportunistic", result: "success" });
    } finally {
      await mailer.close();
    }
  });
});
