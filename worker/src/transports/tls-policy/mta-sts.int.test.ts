import { loadConfig } from "@mailroom/core/config";
import { createTestCa, type TestCa } from "@mailroom/core/tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../../test/support/dns-server.ts";
import { type MtaStsServer, startMtaStsServer, stsPolicy } from "../../../../test/support/mta-sts-server.ts";
import { type CountingSmtpSink, startCountingSink } from "../../../../test/support/smtp-sinks.ts";
import { createDirectTransport, type DirectTransportOptions } from "../direct.ts";
import type { MailTransport, OutboundMessage } from "../types.ts";

const { shaping } = loadConfig({});

// Real parts on loopback: a DNS server publishing MX, A and _mta-sts TXT records, an HTTPS policy host with a
// certificate from a test CA, and SMTP receivers offering STARTTLS with valid, expired or wrong-name ones.
const DOMAINS = ["enforce.test", "testing.test", "plain.test", "gone.test", "change.test", "none.test"];

let ca: TestCa;
let dns: TestDnsServer;
let policyHost: MtaStsServer;
let sink: CountingSmtpSink | undefined;
let transport: MailTransport | undefined;

beforeAll(async () => {
  ca = await createTestCa();
  dns = await startDnsServer();
  policyHost = await startMtaStsServer(await ca.issue(DOMAINS.map((d) => `mta-sts.${d}`)));
  for (const domain of DOMAINS) dns.setRecords(`mta-sts.${domain}`, [{ type: "A", address: "127.0.0.1" }]);
});
afterAll(async () => {
  await policyHost.close();
  await dns.close();
});
afterEach(async () => {
  await transport?.close();
  await sink?.close();
  transport = undefined;
  sink = undefined;
});

type Receiver = { names?: readonly string[]; expired?: boolean; starttls?: boolean };

/** A receiver for `domain` at mx.<domain> (127.0.0.1), a policy when given, and a direct transport. */
async function start(
  domain: string,
  receiver: Receiver,
  policy?: { mode: "enforce" | "testing"; mx?: string[] },
  extra: Partial<DirectTransportOptions> = {},
) {
  const tls = await ca.issue([...(receiver.names ?? [`mx.${domain}`])], {
    expired: receiver.expired ?? false,
  });
  sink = await startCountingSink({ starttls: receiver.starttls ?? true, key: tls.key, cert: tls.cert });
  dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: `mx.${domain}` }]);
  dns.setRecords(`mx.${domain}`, [{ type: "A", address: "127.0.0.1" }]);
  if (policy) {
    dns.setTxt(`_mta-sts.${domain}`, ["v=STSv1; id=20261128a;"]);
    policyHost.setPolicy(domain, stsPolicy(policy.mode, policy.mx ?? [`mx.${domain}`]));
  }
  transport = createDirectTransport({
    dnsServers: [dns.address],
    dnsCacheSeconds: 0,
    shaping: { ...shaping, defaults: { ...shaping.defaults, concurrency: 2 } },
    heloName: "out.mailroom.test",
    port: sink.port,
    mtaStsPort: policyHost.port,
    extraCas: [ca.cert],
    connectTimeoutMs: 5_000,
    allowedCidrs: ["127.0.0.0/8"],
    ...extra,
  });
  return { sink, transport };
}

function message(
  to: string,
  requireTls = false,
  exempt?: OutboundMessage["tlsPolicyExempt"],
): OutboundMessage {
  const raw = Buffer.from(`From: app@sender.test\r\nTo: ${to}\r\nSubject: sts\r\n\r\nHello.\r\n`);
  return {
    envelope: { from: () => "bounces@sender.test", to: [to] },
    raw,
    messageId: "<s@sender.test>",
    requireTls,
    ...(exempt ? { tlsPolicyExempt: exempt } : {}),
  };
}

describe("MTA-STS enforce", () => {
  it("delivers to a named MX over TLS with a certificate valid for its name, and reports success", async () => {
    const { sink, transport } = await start("enforce.test", {}, { mode: "enforce" });
    const [result] = await transport.send(message("u@enforce.test"));
    expect(result).toMatchObject({ status: "accepted", mx: "mx.enforce.test" });
    expect(result?.tls).toMatchObject({
      mechanism: "mta-sts",
      policyDomain: "enforce.test",
      policyType: "sts",
      enforced: true,
      mxHost: "mx.enforce.test",
      receivingIp: "127.0.0.1",
      result: "success",
      tls: true,
      verified: true,
    });
    expect(result?.tls?.policyStrings).toContain("mode: enforce");
    expect(sink.messages.map((m) => m.secure)).toEqual([true]);
  });

  it.each([
    ["an expired certificate", { expired: true }, "certificate-expired", /expired/],
    [
      "a certificate for another name",
      { names: ["other.example"] },
      "certificate-host-mismatch",
      /not valid for/,
    ],
    ["no STARTTLS", { starttls: false }, "starttls-not-supported", /no TLS/],
  ] as const)("defers (sends nothing) on %s, saying why", async (_, receiver, type, reason) => {
    const { sink, transport } = await start("enforce.test", receiver, { mode: "enforce" });
    const [result] = await transport.send(message("u@enforce.test"));
    expect(result?.status).toBe("temporary");
    expect(result?.response).toMatch(/^MTA-STS policy of enforce\.test \(enforce\): mx\.enforce\.test: /);
    expect(result?.response).toMatch(reason);
    expect(result?.tls).toMatchObject({
      mechanism: "mta-sts",
      enforced: true,
      result: type,
      verified: false,
    });
    expect(sink.messages).toHaveLength(0);
  });

  it("does not connect to an MX host the policy does not name", async () => {
    const { sink, transport } = await start(
      "enforce.test",
      {},
      { mode: "enforce", mx: ["mx.elsewhere.test"] },
    );
    const [result] = await transport.send(message("u@enforce.test"));
    expect(result).toMatchObject({ status: "temporary", mx: "mx.enforce.test" });
    expect(result?.response).toMatch(/not named by the policy/);
    expect(result?.tls).toMatchObject({ result: "validation-failure", enforced: true });
    expect(sink.connections).toBe(0);
  });
});

describe("MTA-STS testing", () => {
  it("delivers despite a wrong-name certificate, and reports the failure", async () => {
    const { sink, transport } = await start(
      "testing.test",
      { names: ["other.example"] },
      { mode: "testing" },
    );
    const [result] = await transport.send(message("u@testing.test"));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({
      mechanism: "mta-sts",
      enforced: false,
      result: "certificate-host-mismatch",
      tls: true,
      verified: false,
    });
    expect(sink.messages).toHaveLength(1);
  });
});

describe("policy discovery and cache", () => {
  it("fetches a policy once for its max_age and again when the TXT id changes", async () => {
    const { transport } = await start("change.test", {}, { mode: "enforce" });
    await transport.send(message("a@change.test"));
    await transport.send(message("b@change.test"));
    expect(policyHost.fetches("change.test")).toBe(1);
    // The new policy names another MX: once fetched, mail to the old one is deferred.
    policyHost.setPolicy("change.test", stsPolicy("enforce", ["mx.elsewhere.test"]));
    const [stale] = await transport.send(message("c@change.test"));
    expect(stale?.status).toBe("accepted");
    dns.setTxt("_mta-sts.change.test", ["v=STSv1; id=20261128b;"]);
    const [fresh] = await transport.send(message("d@change.test"));
    expect(policyHost.fetches("change.test")).toBe(2);
    expect(fresh?.status).toBe("temporary");
  });

  it("keeps a cached policy when the TXT record disappears", async () => {
    const { transport } = await start("gone.test", { names: ["other.example"] }, { mode: "enforce" });
    expect((await transport.send(message("a@gone.test")))[0]?.status).toBe("temporary");
    dns.removeName("_mta-sts.gone.test");
    const [again] = await transport.send(message("b@gone.test"));
    expect(again?.status).toBe("temporary");
    expect(again?.tls?.mechanism).toBe("mta-sts");
  });

  it("delivers opportunistically, reporting the fetch error, when an announced policy cannot be fetched", async () => {
    const { transport } = await start("none.test", {});
    dns.setTxt("_mta-sts.none.test", ["v=STSv1; id=1;"]);
    const [result] = await transport.send(message("u@none.test"));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({
      mechanism: "opportunistic",
      policyType: "sts",
      result: "sts-policy-fetch-error",
      enforced: false,
    });
    expect(result?.tls?.detail).toMatch(/HTTP 404/);
  });

  it("does not take a policy from a host whose certificate does not name mta-sts.<domain>", async () => {
    // The policy host's certificate names the other test domains' policy hosts, not this one.
    const { transport } = await start("webpki.test", {});
    dns.setRecords("mta-sts.webpki.test", [{ type: "A", address: "127.0.0.1" }]);
    dns.setTxt("_mta-sts.webpki.test", ["v=STSv1; id=1;"]);
    policyHost.setPolicy("webpki.test", stsPolicy("enforce", ["mx.elsewhere.test"]));
    const [result] = await transport.send(message("u@webpki.test"));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({ mechanism: "opportunistic", result: "sts-webpki-invalid" });
    expect(policyHost.fetches("webpki.test")).toBe(0);
  });

  it("without a policy, uses STARTTLS opportunistically whatever the certificate", async () => {
    const { transport } = await start("plain.test", { names: ["other.example"] });
    const [result] = await transport.send(message("u@plain.test"));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({
      mechanism: "opportunistic",
      policyType: "no-policy-found",
      result: "success",
      tls: true,
      verified: false,
      enforced: false,
    });
  });
});

describe("requireTls (RFC 8689) in direct delivery", () => {
  it("refuses a plain session and an unverified certificate, and delivers over a verified one", async () => {
    const { sink, transport } = await start("plain.test", { starttls: false });
    const [plain] = await transport.send(message("u@plain.test", true));
    expect(plain?.status).toBe("temporary");
    expect(plain?.response).toMatch(/^REQUIRETLS: mx\.plain\.test: no TLS/);
    expect(plain?.tls).toMatchObject({ result: "starttls-not-supported", enforced: true });
    expect(sink.messages).toHaveLength(0);
    await transport.close();
    await sink.close();

    const wrong = await start("plain.test", { names: ["other.example"] });
    const [unverified] = await wrong.transport.send(message("u@plain.test", true));
    expect(unverified?.response).toMatch(/^REQUIRETLS: .*not valid for the host name/);
    expect(wrong.sink.messages).toHaveLength(0);
    await wrong.transport.close();
    await wrong.sink.close();

    const good = await start("plain.test", {});
    const [verified] = await good.transport.send(message("u@plain.test", true));
    expect(verified).toMatchObject({ status: "accepted" });
    expect(verified?.tls).toMatchObject({ mechanism: "opportunistic", verified: true, enforced: true });
    expect(good.sink.messages.map((m) => m.secure)).toEqual([true]);
  });
});

describe("an email exempt from receivers' policies (a TLS report, TLS-Required: No)", () => {
  it("is delivered despite an enforced MTA-STS failure, the outcome reported and marked", async () => {
    const { sink, transport } = await start("enforce.test", { expired: true }, { mode: "enforce" });
    const [result] = await transport.send(message("u@enforce.test", false, "tls-report"));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({
      mechanism: "mta-sts",
      result: "certificate-expired",
      enforced: false,
      exempt: "tls-report",
    });
    expect(sink.messages.map((m) => m.secure)).toEqual([true]);
  });

  it("is delivered to an MX host whose TLSA lookup fails (DNSSEC trouble), which others wait for", async () => {
    const dnssec = { dnssecValidating: true };
    const { sink, transport } = await start("plain.test", {}, undefined, dnssec);
    dns.setFault(`_${sink.port}._tcp.mx.plain.test`, "servfail");
    try {
      const [held] = await transport.send(message("a@plain.test"));
      expect(held).toMatchObject({ status: "temporary", tls: { result: "dnssec-invalid", enforced: true } });
      const [sent] = await transport.send(message("b@plain.test", false, "tls-required-no"));
      expect(sent).toMatchObject({ status: "accepted", tls: { exempt: "tls-required-no", enforced: false } });
      expect(sink.messages.map((m) => m.envelope.to)).toEqual([["b@plain.test"]]);
    } finally {
      dns.setFault(`_${sink.port}._tcp.mx.plain.test`, undefined);
    }
  });
});
