import { loadConfig } from "@mailroom/core/config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import {
  type CountingSmtpSink,
  type SinkOptions,
  startCountingSink,
} from "../../../test/support/smtp-sinks.ts";
import { createDirectTransport } from "./direct.ts";
import type { MailTransport, OutboundMessage } from "./types.ts";

// Two MX hosts on one port: 127.0.0.1 and 127.0.0.2 are both loopback on Linux. 127.0.0.3 has no
// listener on that port, so connecting there is refused at once: a host that is down.
const HOST_A = "127.0.0.1";
const HOST_B = "127.0.0.2";
const HOST_DOWN = "127.0.0.3";

let dns: TestDnsServer;
let sinkA: CountingSmtpSink;
let sinkB: CountingSmtpSink | undefined;
let transport: MailTransport | undefined;

beforeEach(async () => {
  dns = await startDnsServer();
});
afterEach(async () => {
  await transport?.close();
  await sinkA.close();
  await sinkB?.close();
  await dns.close();
  transport = undefined;
  sinkB = undefined;
});

/** Sink A on a free port, sink B (when asked for) on the same port, and a direct transport to that port. */
async function start(
  options: {
    a?: SinkOptions;
    b?: SinkOptions;
    maxPerDomain?: number;
    allowedCidrs?: string[];
    dnsCacheSeconds?: number;
  } = {},
) {
  sinkA = await startCountingSink({ host: HOST_A, ...options.a });
  if (options.b) sinkB = await startCountingSink({ host: HOST_B, port: sinkA.port, ...options.b });
  const { shaping } = loadConfig({});
  transport = createDirectTransport({
    dnsServers: [dns.address],
    dnsCacheSeconds: options.dnsCacheSeconds ?? 300,
    heloName: "out.mailroom.test",
    port: sinkA.port,
    connectTimeoutMs: 5_000,
    // The test's MX hosts live on loopback, which production refuses unless allowed.
    allowedCidrs: options.allowedCidrs ?? ["127.0.0.0/8"],
    shaping: { ...shaping, defaults: { ...shaping.defaults, concurrency: options.maxPerDomain ?? 2 } },
  });
  return { sinkA, sinkB, transport };
}

/** Publishes MX records for `domain`, each `[preference, host name, address]`. */
function publishMx(domain: string, ...hosts: Array<[number, string, string]>) {
  dns.setRecords(
    domain,
    hosts.map(([priority, exchange]) => ({ type: "MX", priority, exchange })),
  );
  for (const [, name, address] of hosts) dns.setRecords(name, [{ type: "A", address }]);
}

function message(to: string[]): OutboundMessage {
  const raw = Buffer.from(
    `From: app@sender.test\r\nTo: ${to.join(", ")}\r\nSubject: direct\r\n\r\nHello.\r\n`,
  );
  return { envelope: { from: () => "bounces@sender.test", to }, raw, messageId: "<d1@sender.test>" };
}

describe("direct transport: routing", () => {
  it("uses the MX host with the lowest preference first, whatever the record order", async () => {
    // The records change between the two messages: no DNS cache, or the second would use the first answer.
    const { sinkA, sinkB, transport } = await start({ b: {}, dnsCacheSeconds: 0 });
    publishMx("pref.test", [20, "mx-b.pref.test", HOST_B], [10, "mx-a.pref.test", HOST_A]);
    const [first] = await transport.send(message(["u@pref.test"]));
    expect(first).toMatchObject({ status: "accepted", code: 250, mx: "mx-a.pref.test" });

    publishMx("pref.test", [10, "mx-a.pref.test", HOST_A], [5, "mx-b.pref.test", HOST_B]);
    const [second] = await transport.send(message(["u@pref.test"]));
    expect(second).toMatchObject({ status: "accepted", mx: "mx-b.pref.test" });
    expect(sinkA.messages).toHaveLength(1);
    expect(sinkB?.messages).toHaveLength(1);
    expect(sinkA.messages[0]?.helo).toBe("out.mailroom.test");
  });

  it("falls back to the next MX when the first refuses the connection", async () => {
    const { sinkA, transport } = await start();
    publishMx("down.test", [10, "mx1.down.test", HOST_DOWN], [20, "mx2.down.test", HOST_A]);
    const [result] = await transport.send(message(["u@down.test"]));
    expect(result).toMatchObject({ status: "accepted", mx: "mx2.down.test" });
    expect(sinkA.messages.map((m) => m.envelope.to)).toEqual([["u@down.test"]]);
  });

  it("never connects to an MX address in a private or loopback range unless allowed, and defers", async () => {
    const { sinkA, transport } = await start({ allowedCidrs: [] });
    publishMx("inside.test", [10, "mx.inside.test", HOST_A]);
    const [result] = await transport.send(message(["u@inside.test"]));
    expect(result).toMatchObject({ status: "temporary", mx: "mx.inside.test" });
    expect(result?.response).toMatch(/refused: 127\.0\.0\.1 is a private or loopback address/);
    expect(sinkA.connections).toBe(0);
  });

  it("refuses a link-local (metadata) MX address even when every range is allowed", async () => {
    const { transport } = await start({ allowedCidrs: ["0.0.0.0/0"] });
    publishMx("cloud.test", [10, "mx.cloud.test", "169.254.169.254"]);
    const [result] = await transport.send(message(["u@cloud.test"]));
    expect(result).toMatchObject({ status: "temporary" });
    expect(result?.response).toMatch(/169\.254\.169\.254 is a metadata, link-local or reserved address/);
  });

  it("falls back to the next MX when the first answers 4xx for the transaction", async () => {
    const { sinkA, sinkB, transport } = await start({ b: {} });
    sinkA.answerMailFrom = () => ({ code: 421, message: "4.3.2 too busy" });
    publishMx("busy.test", [10, "mx-a.busy.test", HOST_A], [20, "mx-b.busy.test", HOST_B]);
    const results = await transport.send(message(["u@busy.test", "v@busy.test"]));
    expect(results.map((r) => [r.recipient, r.status, r.mx])).toEqual([
      ["u@busy.test", "accepted", "mx-b.busy.test"],
      ["v@busy.test", "accepted", "mx-b.busy.test"],
    ]);
    expect(sinkA.connections).toBe(1);
    expect(sinkA.messages).toHaveLength(0);
    expect(sinkB?.messages).toHaveLength(1);
  });

  it("offers only the deferred recipients to the next MX and never re-sends a bounced one", async () => {
    const { sinkA, sinkB, transport } = await start({ b: {} });
    sinkA.answerRecipient = (to) =>
      to.startsWith("grey")
        ? { code: 451, message: "4.7.1 greylisted" }
        : to.startsWith("gone")
          ? { code: 550, message: "5.1.1 no such user" }
          : { code: 250 };
    publishMx("mixed.test", [10, "mx-a.mixed.test", HOST_A], [20, "mx-b.mixed.test", HOST_B]);
    const results = await transport.send(message(["ok@mixed.test", "grey@mixed.test", "gone@mixed.test"]));
    expect(results.map((r) => [r.recipient, r.status, r.code, r.mx])).toEqual([
      ["ok@mixed.test", "accepted", 250, "mx-a.mixed.test"],
      ["grey@mixed.test", "accepted", 250, "mx-b.mixed.test"],
      ["gone@mixed.test", "permanent", 550, "mx-a.mixed.test"],
    ]);
    expect(sinkA.messages.map((m) => m.envelope.to)).toEqual([["ok@mixed.test"]]);
    expect(sinkB?.messages.map((m) => m.envelope.to)).toEqual([["grey@mixed.test"]]);
  });

  it("defers with the last MX host's reply when every MX defers", async () => {
    const { sinkA, sinkB, transport } = await start({ b: {} });
    sinkA.answerMailFrom = () => ({ code: 421, message: "4.3.2 first busy" });
    if (sinkB) sinkB.answerData = () => ({ code: 452, message: "4.3.1 second full" });
    publishMx("allbusy.test", [10, "mx-a.allbusy.test", HOST_A], [20, "mx-b.allbusy.test", HOST_B]);
    const [result] = await transport.send(message(["u@allbusy.test"]));
    expect(result).toMatchObject({ status: "temporary", code: 452, mx: "mx-b.allbusy.test" });
    expect(result?.response).toContain("second full");
  });

  it("delivers to the domain's own A record when it has no MX (implicit MX)", async () => {
    const { sinkA, transport } = await start();
    dns.setRecords("implicit.test", [{ type: "A", address: HOST_A }]);
    const [result] = await transport.send(message(["u@implicit.test"]));
    expect(result).toMatchObject({ status: "accepted", mx: "implicit.test" });
    expect(sinkA.messages).toHaveLength(1);
  });

  it("bounces a null MX, a domain that does not exist and one with no MX or address; defers a DNS failure", async () => {
    const { sinkA, transport } = await start();
    dns.setRecords("nullmx.test", [{ type: "MX", priority: 0, exchange: "." }]);
    dns.setRecords("noaddress.test", [{ type: "TXT", strings: ["v=spf1 -all"] }]);
    dns.setRecords("servfail.test", [{ type: "A", address: HOST_A }]);
    dns.setFault("servfail.test", "servfail");
    const results = await transport.send(
      message(["u@nullmx.test", "u@missing.test", "u@noaddress.test", "u@servfail.test"]),
    );
    expect(results.map((r) => [r.recipient, r.status, r.code])).toEqual([
      ["u@nullmx.test", "permanent", 556],
      ["u@missing.test", "permanent", undefined],
      ["u@noaddress.test", "permanent", undefined],
      ["u@servfail.test", "temporary", undefined],
    ]);
    expect(results[1]?.response).toContain("NXDOMAIN");
    expect(sinkA.connections).toBe(0);
  });

  it("splits one message by recipient domain and keeps the results in recipient order", async () => {
    const { sinkA, sinkB, transport } = await start({ b: {} });
    publishMx("one.test", [10, "mx.one.test", HOST_A]);
    publishMx("two.test", [10, "mx.two.test", HOST_B]);
    const results = await transport.send(message(["a@two.test", "b@one.test", "c@TWO.test"]));
    expect(results.map((r) => [r.recipient, r.status, r.mx])).toEqual([
      ["a@two.test", "accepted", "mx.two.test"],
      ["b@one.test", "accepted", "mx.one.test"],
      ["c@TWO.test", "accepted", "mx.two.test"],
    ]);
    expect(sinkA.messages.map((m) => m.envelope.to)).toEqual([["b@one.test"]]);
    expect(sinkB?.messages.map((m) => m.envelope.to)).toEqual([["a@two.test", "c@TWO.test"]]);
  });
});

describe("direct transport: sessions", () => {
  it("holds each destination (here each domain's MX host) to its cap of sessions, and counts them apart", async () => {
    const { sinkA, transport } = await start({ a: { dataDelayMs: 150 }, maxPerDomain: 2 });
    publishMx("capped.test", [10, "mx.capped.test", HOST_A]);
    const burst = (domain: string) =>
      Array.from({ length: 6 }, (_, i) => transport.send(message([`u${i}@${domain}`])));
    const one = (await Promise.all(burst("capped.test"))).flat();
    expect(one.every((r) => r.status === "accepted")).toBe(true);
    // Not above the cap, and not serialised below it either.
    expect(sinkA.maxConcurrentConnections).toBe(2);

    // A second domain on the same address under another MX name is another destination, with a cap of its own.
    publishMx("other.test", [10, "mx.other.test", HOST_A]);
    const both = (await Promise.all([...burst("capped.test"), ...burst("other.test")])).flat();
    expect(both.every((r) => r.status === "accepted")).toBe(true);
    expect(sinkA.maxConcurrentConnections).toBe(4);
    expect(sinkA.messages).toHaveLength(18);
  });

  it("asks DNS once for a burst of messages to one domain and the message after it", async () => {
    const { sinkA, transport } = await start({ dnsCacheSeconds: 300 });
    publishMx("cached.test", [10, "mx.cached.test", HOST_A]);
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => transport.send(message([`u${i}@cached.test`]))),
    );
    const [later] = await transport.send(message(["later@cached.test"]));
    expect([...burst.flat(), later].every((r) => r?.status === "accepted")).toBe(true);
    expect(sinkA.messages).toHaveLength(11);
    expect(dns.queryCount("cached.test", "MX")).toBe(1);
    expect(dns.queryCount("mx.cached.test", "A")).toBe(1);
  });

  it("reuses an idle session for the next message to the same domain", async () => {
    const { sinkA, transport } = await start();
    publishMx("reuse.test", [10, "mx.reuse.test", HOST_A]);
    for (let i = 0; i < 3; i += 1) {
      const [result] = await transport.send(message([`u${i}@reuse.test`]));
      expect(result?.status).toBe("accepted");
    }
    expect(sinkA.connections).toBe(1);
    expect(sinkA.messages).toHaveLength(3);
  });

  it("uses STARTTLS when offered, even with a self-signed certificate", async () => {
    const { sinkA, transport } = await start({ a: { starttls: true } });
    publishMx("tls.test", [10, "mx.tls.test", HOST_A]);
    const [result] = await transport.send(message(["u@tls.test"]));
    expect(result?.status).toBe("accepted");
    expect(sinkA.messages[0]?.secure).toBe(true);
  });

  it("delivers in plain text when STARTTLS is not offered", async () => {
    const { sinkA, transport } = await start({ a: { starttls: false } });
    publishMx("plain.test", [10, "mx.plain.test", HOST_A]);
    const [result] = await transport.send(message(["u@plain.test"]));
    expect(result?.status).toBe("accepted");
    expect(sinkA.messages[0]?.secure).toBe(false);
  });
});
