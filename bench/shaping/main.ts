/**
 * Traffic shaping per destination (issue 32 item 5, ADR 0059): a throttling receiver is backed off while a
 * second receiver keeps its full rate. Two real SMTP receivers on loopback (127.0.0.1 and 127.0.0.2, one
 * port), MX records from a real DNS server, and the real direct transport with its shaping:
 *   - receiver A is a provider group (`bigmail`, two customer domains) that accepts BENCH_THROTTLE_PER_SECOND
 *     messages in each wall-clock second and answers `421 4.7.28` to the rest;
 *   - receiver B (`steady.test`, an MX host of no group) accepts everything.
 * BENCH_SLOTS delivery slots (the worker's default MAILROOM_WORKER_CONCURRENCY, 20) each send one message at a
 * time, as the deliver task does. Phase 1, the baseline: every slot sends to B alone. Phase 2: the slots
 * alternate A and B. Phase 3, a control: the same mix while A takes everything. Phase 4: B alone again.
 * Deferred mail is counted and dropped (the retry plan would send it later). Each phase is
 * BENCH_SECONDS long on a transport of its own; everything runs in this process.
 *
 * Run: `npx node bench/shaping/main.ts` (`make bench-shaping`). BENCH_SECONDS (10), BENCH_SLOTS (20),
 * BENCH_THROTTLE_PER_SECOND (100), BENCH_RECEIVER_DELAY_MS (20: each receiver's answer to the data);
 * MAILROOM_SHAPING_* tune the shaping as they would the worker, except the pause, 1 s doubling to 8 s here
 * (30 s to 900 s by default), so that recovery shows within a phase.
 */
import os from "node:os";
import { loadConfig } from "@mailroom/core/config";
import { createWorkerMetrics } from "@mailroom/core/telemetry";
import { startDnsServer } from "../../test/support/dns-server.ts";
import { type CountingSmtpSink, startCountingSink } from "../../test/support/smtp-sinks.ts";
import { createDirectTransport } from "../../worker/src/transports/direct.ts";
import type { OutboundMessage, RecipientResult } from "../../worker/src/transports/types.ts";
import { commandLine, int, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { exitIfHelp } from "../shared/lifecycle.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SLOTS = Number(process.env.BENCH_SLOTS ?? 20);
const THROTTLE = Number(process.env.BENCH_THROTTLE_PER_SECOND ?? 100);
// Both receivers answer the message data after this long, as a remote MX does: B's rate is then bounded by
// its 5 sessions (about 5 / 20 ms = 250/s), not by this shared machine's CPU, so "full rate" means something.
const DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 20);
const say = (line: string) => process.stdout.write(`› ${line}\n`);

const A_DOMAINS = ["alpha.test", "beta.test"];
const B_DOMAIN = "steady.test";

interface Tally {
  accepted: number;
  rateLimited: number;
  backedOff: number;
  busy: number;
  other: number;
}

const tally = (): Tally => ({ accepted: 0, rateLimited: 0, backedOff: 0, busy: 0, other: 0 });

function count(into: Tally, result: RecipientResult | undefined) {
  const untried = result?.response.startsWith("not attempted:");
  if (result?.status === "accepted") into.accepted += 1;
  else if (untried && result?.response.includes("backed off")) into.backedOff += 1;
  else if (untried) into.busy += 1;
  else if (result?.code === 421) into.rateLimited += 1;
  else into.other += 1;
}

function message(to: string): OutboundMessage {
  const raw = Buffer.from(`From: app@sender.test\r\nTo: ${to}\r\nSubject: shaping bench\r\n\r\nHello.\r\n`);
  return { envelope: { from: () => "bounces@sender.test", to: [to] }, raw, messageId: "<b@sender.test>" };
}

/**
 * Receiver A's allowance: THROTTLE accepted MAIL FROMs per wall-clock second, then 421 4.7.28; while `on` is
 * false it takes everything (the control phase).
 */
function throttle(sink: CountingSmtpSink) {
  let second = 0;
  let taken = 0;
  let refused = 0;
  const state = { on: true, refused: () => refused };
  sink.answerMailFrom = () => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) [second, taken] = [now, 0];
    if (!state.on || taken < THROTTLE) {
      taken += 1;
      return { code: 250 };
    }
    refused += 1;
    return { code: 421, message: "4.7.28 Our system has detected an unusual rate of mail from your IP" };
  };
  return state;
}

async function main() {
  const dns = await startDnsServer();
  const sinkA = await startCountingSink({ host: "127.0.0.1", dataDelayMs: DELAY_MS });
  const sinkB = await startCountingSink({ host: "127.0.0.2", port: sinkA.port, dataDelayMs: DELAY_MS });
  const throttling = throttle(sinkA);
  const refusedByA = throttling.refused;
  A_DOMAINS.forEach((domain, i) => {
    dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: `mx${i}.bigmail.test` }]);
    dns.setRecords(`mx${i}.bigmail.test`, [{ type: "A", address: "127.0.0.1" }]);
  });
  dns.setRecords(B_DOMAIN, [{ type: "MX", priority: 10, exchange: "mx.steady.test" }]);
  dns.setRecords("mx.steady.test", [{ type: "A", address: "127.0.0.2" }]);
  const { shaping } = loadConfig(process.env);
  const bigmail = { ...shaping.defaults, concurrency: 10, name: "bigmail", mxSuffixes: ["bigmail.test"] };

  /** One phase: SLOTS loops sending to `pick(i)` until the deadline, on a transport of its own. */
  async function phase(name: string, pick: (i: number) => string, seconds = SECONDS) {
    const metrics = createWorkerMetrics();
    const transport = createDirectTransport({
      dnsServers: [dns.address],
      dnsCacheSeconds: 300,
      heloName: "bench.mailroom.test",
      port: sinkA.port,
      allowedCidrs: ["127.0.0.0/8"],
      shaping: { ...shaping, providers: [bigmail], backoffSeconds: 1, backoffMaxSeconds: 8, metrics },
    });
    const tallies = { A: tally(), B: tally() };
    const before = { a: sinkA.messages.length, b: sinkB.messages.length, refused: refusedByA() };
    let next = 0;
    const started = performance.now();
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: SLOTS }, async () => {
        while (Date.now() < deadline) {
          const i = next++;
          const to = `u${i}@${pick(i)}`;
          const [result] = await transport.send(message(to));
          count(to.endsWith(B_DOMAIN) ? tallies.B : tallies.A, result);
        }
      }),
    );
    const took = (performance.now() - started) / 1000;
    await transport.close();
    const received = { a: sinkA.messages.length - before.a, b: sinkB.messages.length - before.b };
    // Correctness: every 250 the transport reported is a message the receiver holds, and nothing more.
    if (received.a !== tallies.A.accepted || received.b !== tallies.B.accepted) {
      throw new Error(
        `${name}: receivers hold ${JSON.stringify(received)}, transport says ${JSON.stringify(tallies)}`,
      );
    }
    const backoffs = (await metrics.destinationBackoffs.get()).values.reduce((sum, v) => sum + v.value, 0);
    say(`${name}: ${JSON.stringify(tallies)} in ${took.toFixed(1)} s, ${backoffs} backoffs`);
    return { name, seconds: took, tallies, refused: refusedByA() - before.refused, backoffs };
  }

  say(`${SLOTS} slots, ${SECONDS} s per phase, receiver A accepts ${THROTTLE}/s`);
  // A warm-up (JIT, first sessions) not reported; the baseline is measured before and after the mixed phase.
  await phase("warm-up", () => B_DOMAIN, 2);
  const before = await phase("B alone (baseline, before)", () => B_DOMAIN);
  const alternate = (i: number) => (i % 2 ? B_DOMAIN : (A_DOMAINS[(i >> 1) % 2] ?? ""));
  const mixed = await phase("A and B alternating", alternate);
  // The control: the same mix with A taking everything, for what A's traffic costs B on this shared CPU.
  throttling.on = false;
  const control = await phase("A (not throttling) and B alternating", alternate);
  throttling.on = true;
  const after = await phase("B alone (baseline, after)", () => B_DOMAIN);
  await Promise.all([sinkA.close(), sinkB.close(), dns.close()]);

  const rate = (n: number, seconds: number) => int(n / seconds);
  const deferred = (t: Tally) => t.rateLimited + t.backedOff + t.busy + t.other;
  const rows = [
    ...[before, after].map(
      (alone) =>
        `| ${alone.name} | B | ${rate(alone.tallies.B.accepted, alone.seconds)} | ${int(alone.tallies.B.accepted)} | — | — |`,
    ),
    `| A and B alternating | B | ${rate(mixed.tallies.B.accepted, mixed.seconds)} | ${int(mixed.tallies.B.accepted)} | ${int(deferred(mixed.tallies.B))} | — |`,
    `| A and B alternating | A (throttles at ${THROTTLE}/s) | ${rate(mixed.tallies.A.accepted, mixed.seconds)} | ${int(mixed.tallies.A.accepted)} | ${int(mixed.tallies.A.rateLimited)} answered 421, ${int(mixed.tallies.A.backedOff)} untried while backed off, ${int(mixed.tallies.A.busy)} untried for want of a slot, ${int(mixed.tallies.A.other)} other | ${mixed.backoffs} |`,
    `| A (not throttling) and B alternating, control | B | ${rate(control.tallies.B.accepted, control.seconds)} | ${int(control.tallies.B.accepted)} | ${int(deferred(control.tallies.B))} | — |`,
    `| A (not throttling) and B alternating, control | A | ${rate(control.tallies.A.accepted, control.seconds)} | ${int(control.tallies.A.accepted)} | ${int(deferred(control.tallies.A))} | ${control.backoffs} |`,
  ];
  const baseline = (before.tallies.B.accepted + after.tallies.B.accepted) / (before.seconds + after.seconds);
  const ratio = mixed.tallies.B.accepted / mixed.seconds / baseline;
  const controlRatio = control.tallies.B.accepted / control.seconds / baseline;
  const cpus = os.cpus();
  const body = [
    `${new Date().toISOString()}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "CPU"}, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(
        ", ",
      )}; ${commandLine("bench/shaping/main.ts", ["BENCH_SECONDS", "BENCH_SLOTS", "BENCH_THROTTLE_PER_SECOND", "BENCH_RECEIVER_DELAY_MS"])}.`,
    `${SLOTS} delivery slots through the direct transport, ${SECONDS} s per phase, receivers and transport in one process on loopback. A is the provider group \`bigmail\` (10 sessions), answering \`421 4.7.28\` past ${THROTTLE} messages per second; B is an MX host of no group (5 sessions). Both answer the data after ${DELAY_MS} ms. Pause after a 421: 1 s doubling to 8 s (default 30 s to 900 s).`,
    "",
    "| phase | receiver | accepted per second | accepted | deferred | backoffs |",
    "|---|---|---:|---:|---|---:|",
    ...rows,
    "",
    `B kept ${Math.round(ratio * 100)} % of its baseline rate (the two baseline phases together) beside the throttled A, and ${Math.round(controlRatio * 100)} % beside an A that throttles nothing (the control: the same mix with A not held back, sharing the delivery slots and this CPU); A's receiver refused ${int(mixed.refused)} transactions in the phase. Every 250 was checked against the messages the receivers hold.`,
  ].join("\n");
  await writeBenchmarkSection("## Traffic shaping per destination (make bench-shaping)", body);
  process.stdout.write(`${body}\n`);
}

await exitIfHelp();
await main();
