import { loadConfig } from "@mailroom/core/config";
import { createWorkerMetrics, type WorkerMetrics } from "@mailroom/core/telemetry";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../../test/support/dns-server.ts";
import {
  type CountingSmtpSink,
  type SinkOptions,
  startCountingSink,
} from "../../../../test/support/smtp-sinks.ts";
import { createDirectTransport } from "../direct.ts";
import type { MailTransport, OutboundMessage } from "../types.ts";

// Real SMTP receivers on two loopback addresses, one port: A stands for a big provider whose MX hosts are
// grouped (`bigmail`), B for an ordinary receiver. The shaping clock is the test's, so a pause is passed
// over by moving it, never waited out.
const HOST_A = "127.0.0.1";
const HOST_B = "127.0.0.2";
const THROTTLE = { code: 421, message: "4.7.28 Our system has detected an unusual rate of mail" };

let dns: TestDnsServer;
let sinkA: CountingSmtpSink;
let sinkB: CountingSmtpSink;
let transport: MailTransport | undefined;
let clock = Date.UTC(2026, 10, 28, 12);

beforeEach(async () => {
  dns = await startDnsServer();
});
afterEach(async () => {
  await transport?.close();
  await sinkA.close();
  await sinkB.close();
  await dns.close();
  transport = undefined;
});

interface Shape {
  concurrency?: number;
  messagesPerConnection?: number;
  ratePerMinute?: number;
  a?: SinkOptions;
  maxWaitSeconds?: number;
}

async function start(shape: Shape = {}) {
  sinkA = await startCountingSink({ host: HOST_A, ...shape.a });
  sinkB = await startCountingSink({ host: HOST_B, port: sinkA.port });
  const metrics = createWorkerMetrics();
  const { shaping } = loadConfig({});
  const bigmail = {
    name: "bigmail",
    mxSuffixes: ["bigmail.test"],
    concurrency: shape.concurrency ?? 4,
    messagesPerConnection: shape.messagesPerConnection ?? 100,
    ratePerMinute: shape.ratePerMinute ?? 0,
  };
  transport = createDirectTransport({
    dnsServers: [dns.address],
    dnsCacheSeconds: 300,
    heloName: "out.mailroom.test",
    port: sinkA.port,
    connectTimeoutMs: 5_000,
    allowedCidrs: ["127.0.0.0/8"],
    shaping: {
      ...shaping,
      providers: [bigmail],
      backoffSeconds: 60,
      maxWaitSeconds: shape.maxWaitSeconds ?? 30,
      metrics,
      now: () => clock,
    },
  });
  // Two customer domains hosted by bigmail (one destination), and one on receiver B.
  publishMx("alpha.test", ["mx1.bigmail.test", HOST_A]);
  publishMx("beta.test", ["mx2.bigmail.test", HOST_A]);
  publishMx("steady.test", ["mx.steady.test", HOST_B]);
  return { transport, metrics };
}

/** MX records for `domain` in the order given (preference 10, 20 …), each `[host name, address]`. */
function publishMx(domain: string, ...hosts: Array<[string, string]>) {
  dns.setRecords(
    domain,
    hosts.map(([exchange], i) => ({ type: "MX", priority: 10 * (i + 1), exchange })),
  );
  for (const [name, address] of hosts) dns.setRecords(name, [{ type: "A", address }]);
}

function message(to: string): OutboundMessage {
  const raw = Buffer.from(`From: app@sender.test\r\nTo: ${to}\r\nSubject: shaped\r\n\r\nHello.\r\n`);
  return { envelope: { from: () => "bounces@sender.test", to: [to] }, raw, messageId: "<s1@sender.test>" };
}

const sendOne = async (t: MailTransport, to: string) => (await t.send(message(to)))[0];

async function metric(metrics: WorkerMetrics, name: string, labels: Record<string, string>) {
  const found = await metrics.registry.getSingleMetric(name)?.get();
  const entry = found?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return entry?.value ?? 0;
}

describe("shaping per destination: adaptive backoff", () => {
  it("backs off a provider after its 421 4.7.28, across its domains, while another receiver keeps its pace", async () => {
    const { transport, metrics } = await start();
    sinkA.answerMailFrom = () => (sinkA.messages.length >= 3 ? THROTTLE : { code: 250 });
    const first = [];
    for (let i = 0; i < 4; i += 1) first.push(await sendOne(transport, `u${i}@alpha.test`));
    expect(first.map((r) => r?.status)).toEqual(["accepted", "accepted", "accepted", "temporary"]);
    expect(first[3]).toMatchObject({ code: 421, mx: "mx1.bigmail.test" });
    expect(first[3]?.response).toMatch(/^421 4\.7\.28 .*; destination bigmail backed off for 60 s$/);
    const connections = sinkA.connections;

    // While paused, bigmail's mail (either domain) is deferred without a connection; B's all goes.
    const burst = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => sendOne(transport, `v${i}@${i % 2 ? "alpha" : "beta"}.test`)),
      ...Array.from({ length: 10 }, (_, i) => sendOne(transport, `w${i}@steady.test`)),
    ]);
    const paused = burst.slice(0, 6);
    expect(paused.every((r) => r?.status === "temporary" && r.code === undefined && r.untried)).toBe(true);
    expect(paused[0]?.response).toMatch(
      /^not attempted: destination bigmail backed off until 2026-11-28T12:01:00\.000Z after "421 4\.7\.28 /,
    );
    expect(burst.slice(6).every((r) => r?.status === "accepted")).toBe(true);
    expect(sinkA.connections).toBe(connections);
    expect(sinkA.messages).toHaveLength(3);
    expect(sinkB.messages).toHaveLength(10);

    expect(
      await metric(metrics, "mailroom_delivery_destination_deferrals_total", { reason: "rate_limited" }),
    ).toBe(1);
    const deferred = { destination: "bigmail", reason: "backed_off" };
    expect(await metric(metrics, "mailroom_delivery_destination_deferrals_total", deferred)).toBe(6);
    expect(
      await metric(metrics, "mailroom_delivery_destination_backoffs_total", { destination: "bigmail" }),
    ).toBe(1);
    expect(
      await metric(metrics, "mailroom_delivery_destination_backed_off", { destination: "bigmail" }),
    ).toBe(1);
    expect(
      await metric(metrics, "mailroom_delivery_destination_deferrals_total", { destination: "other" }),
    ).toBe(0);

    // Past the pause it is tried again, at half its concurrency, and recovers on accepted messages.
    clock += 61_000;
    sinkA.answerMailFrom = () => ({ code: 250 });
    expect(await sendOne(transport, "x@alpha.test")).toMatchObject({ status: "accepted" });
    expect(
      await metric(metrics, "mailroom_delivery_destination_backed_off", { destination: "bigmail" }),
    ).toBe(1);
    for (let i = 0; i < 9; i += 1) await sendOne(transport, `y${i}@beta.test`);
    expect(
      await metric(metrics, "mailroom_delivery_destination_backed_off", { destination: "bigmail" }),
    ).toBe(0);
  });

  it("backs off a throttling MX host of no group alone: the domain's next MX takes its mail", async () => {
    const { transport } = await start();
    publishMx("pair.test", ["mx1.pair.test", HOST_A], ["mx2.pair.test", HOST_B]);
    sinkA.answerMailFrom = () => THROTTLE;
    expect(await sendOne(transport, "a@pair.test")).toMatchObject({
      status: "accepted",
      mx: "mx2.pair.test",
    });
    const tried = sinkA.connections;
    for (let i = 0; i < 3; i += 1) {
      expect(await sendOne(transport, `b${i}@pair.test`)).toMatchObject({
        status: "accepted",
        mx: "mx2.pair.test",
      });
    }
    // The throttling host was not asked again while backed off.
    expect(sinkA.connections).toBe(tried);
    expect(sinkB.messages).toHaveLength(4);
  });

  it("does not back off on greylisting or other temporary failures", async () => {
    const { transport, metrics } = await start();
    sinkA.answerRecipient = (to) =>
      to.startsWith("grey") ? { code: 451, message: "4.7.1 Greylisted, try again later" } : { code: 250 };
    expect(await sendOne(transport, "grey@alpha.test")).toMatchObject({ status: "temporary", code: 451 });
    expect(await sendOne(transport, "ok@alpha.test")).toMatchObject({ status: "accepted" });
    const other = { destination: "bigmail", reason: "other" };
    expect(await metric(metrics, "mailroom_delivery_destination_deferrals_total", other)).toBe(1);
    expect(
      await metric(metrics, "mailroom_delivery_destination_backoffs_total", { destination: "bigmail" }),
    ).toBe(0);
  });
});

describe("shaping per destination: limits", () => {
  it("holds a provider group to its sessions across the domains it hosts", async () => {
    const { transport } = await start({ concurrency: 2, a: { dataDelayMs: 100 } });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sendOne(transport, `u${i}@${i % 2 ? "alpha" : "beta"}.test`)),
    );
    expect(results.every((r) => r?.status === "accepted")).toBe(true);
    // Not above the group's two sessions (per domain it would be two each), and not serialised below them.
    expect(sinkA.maxConcurrentConnections).toBe(2);
    expect(sinkA.messages).toHaveLength(8);
  });

  it("after a backoff holds the provider to half its sessions until accepted mail restores them", async () => {
    const { transport } = await start({ concurrency: 4, a: { dataDelayMs: 100 } });
    sinkA.answerMailFrom = () => THROTTLE;
    expect(await sendOne(transport, "a@alpha.test")).toMatchObject({ status: "temporary", code: 421 });
    sinkA.answerMailFrom = () => ({ code: 250 });
    clock += 61_000;
    const burst = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => sendOne(transport, `u${i}@${i % 2 ? "alpha" : "beta"}.test`)),
      );
    // Half of four sessions; four accepted transactions give back 20 % (still two sessions).
    expect((await burst(4)).every((r) => r?.status === "accepted")).toBe(true);
    expect(sinkA.maxConcurrentConnections).toBe(2);
    // Six more, one at a time, give back the rest: all four sessions again.
    for (let i = 0; i < 6; i += 1) await sendOne(transport, `s${i}@alpha.test`);
    expect((await burst(8)).every((r) => r?.status === "accepted")).toBe(true);
    expect(sinkA.maxConcurrentConnections).toBe(4);
  });

  it("opens a new session after the destination's messages per connection", async () => {
    const { transport } = await start({ messagesPerConnection: 2 });
    for (let i = 0; i < 5; i += 1)
      expect(await sendOne(transport, `u${i}@alpha.test`)).toMatchObject({ status: "accepted" });
    expect(sinkA.connections).toBe(3);
  });

  it("spaces transactions by the destination's rate, deferring what cannot start within the longest wait", async () => {
    const { transport, metrics } = await start({ ratePerMinute: 1, maxWaitSeconds: 10 });
    expect(await sendOne(transport, "a@alpha.test")).toMatchObject({ status: "accepted" });
    const early = await sendOne(transport, "b@beta.test");
    expect(early).toMatchObject({ status: "temporary" });
    expect(early?.response).toBe("not attempted: destination bigmail busy (no slot within 10 s)");
    expect(await metric(metrics, "mailroom_delivery_destination_deferrals_total", { reason: "busy" })).toBe(
      1,
    );
    // The clock, not the wall, says when the next start is due.
    clock += 60_000;
    expect(await sendOne(transport, "c@beta.test")).toMatchObject({ status: "accepted" });
    expect(sinkA.messages).toHaveLength(2);
  });
});
