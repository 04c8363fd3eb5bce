/**
 * Mailroom against a real peer (issue 21 item 1): Debian's Postfix + OpenDKIM (bench/shared/postfix-peer.ts),
 * receiving the bench email over SMTP from nodemailer's pool (20 connections) and relaying it signed
 * (RSA-2048, relaxed/relaxed) to the sink, beside Mailroom accepting the same email through core and
 * delivering it signed with its worker to the same sink. The two alternate, `BENCH_PEER_ROUNDS` (2) times
 * each. Reported per side: signed messages/s and CPU per message, both for the side's own processes (Postfix +
 * OpenDKIM; Mailroom's worker + Postgres) and for the whole machine (client and sink included, the same on
 * both sides). Every message is checked to arrive once, signed; a sample is verified by mailauth.
 *
 * Skipped, with the reason printed and written to BENCHMARKS.md, when not root or without the packages.
 *
 * Run: `make bench` or `npx node bench/peer/main.ts`. BENCH_DELIVERY_EMAILS (4000) per side and round,
 * BENCH_DELIVERY_WARMUP (300), BENCH_DELIVERY_BATCH (100), BENCH_PEER_ROUNDS (2).
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate } from "@mailroom/core/db";
import { DOMAIN } from "../delivery/protocol.ts";
import { checkCell, perSecond, type ThroughputResult } from "../delivery/report.ts";
import { type DbCpu, type DeliveryRun, type DeliverySettings, setUp } from "../delivery/setup.ts";
import { startSink } from "../delivery/sink-control.ts";
import { runBaseline, runMailroom, startMailroomWorker } from "../delivery/throughput.ts";
import { commandLine, int, mark, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { postfixPeerUnavailable, startPostfixPeer } from "../shared/postfix-peer.ts";
import { openBenchDatabase } from "../shared/support.ts";

const SECTION_HEADING = "## Against Postfix + OpenDKIM (make bench)";
const GOAL = 3;

const envNumber = (name: string, fallback: number, min = 1) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
};
const SETTINGS: DeliverySettings = Object.freeze({
  emails: envNumber("BENCH_DELIVERY_EMAILS", 4000),
  warmup: envNumber("BENCH_DELIVERY_WARMUP", 300, 0),
  batch: envNumber("BENCH_DELIVERY_BATCH", 100),
  rate: 1,
  latencySeconds: 1,
  profileArgs: [],
  serverLogs: Boolean(process.env.BENCH_SERVER_LOGS),
});
const ROUNDS = envNumber("BENCH_PEER_ROUNDS", 2);
const PEER_CONCURRENCY = 20;
const HARD_LIMIT_MS = 20 * 60_000;
const COMMAND = commandLine("bench/peer/main.ts", [
  "BENCH_DELIVERY_EMAILS",
  "BENCH_DELIVERY_WARMUP",
  "BENCH_DELIVERY_BATCH",
  "BENCH_PEER_ROUNDS",
  "MAILROOM_WORKER_CONCURRENCY",
]);

const say = (line: string) => process.stdout.write(`${line}\n`);

/** CPU per message: the side's own processes, and the whole machine over the measured period. */
function cpuPerMessage(r: ThroughputResult, own: number | undefined) {
  const machine = (r.machineBusy * os.availableParallelism() * r.seconds * 1000) / r.check.arrived;
  return { own: own === undefined ? undefined : own / r.check.arrived, machine };
}

function row(r: ThroughputResult, own: number | undefined): string {
  const cpu = cpuPerMessage(r, own);
  return (
    `| ${r.label} | ${int(perSecond(r))} | ${cpu.own === undefined ? "n/a" : cpu.own.toFixed(2)} | ` +
    `${cpu.machine.toFixed(2)} | ${checkCell(r.check)} |`
  );
}

async function main(onCleanup: OnCleanup): Promise<number> {
  const loadBefore = os.loadavg();
  say(
    `Peer benchmark on ${os.availableParallelism()} CPUs, load ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`,
  );
  const unavailable = postfixPeerUnavailable();
  if (unavailable) {
    say(`› skipped: ${unavailable}`);
    await writeBenchmarkSection(
      SECTION_HEADING,
      `Not measured in the last run (${COMMAND}): ${unavailable}.`,
    );
    return 0;
  }
  const run: DeliveryRun = { say, onCleanup, settings: SETTINGS };
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-peer-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  await chmod(tmp, 0o755);
  say("› starting Postgres and migrating");
  const db = await openBenchDatabase(tmp);
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: 4, applicationName: "bench-peer" });
  onCleanup(() => pool.end());
  const dbCpu: DbCpu = { cpuMs: () => db.cpuMs?.() };
  const setup = await setUp(pool, say);
  const sink = await startSink(run);
  const peer = await startPostfixPeer({
    sinkPort: Number(new URL(sink.url).port),
    domain: DOMAIN,
    selector: setup.selector,
    privateKeyPem: setup.privateKeyPem,
    say,
  });
  onCleanup(() => peer.stop());
  const worker = await startMailroomWorker(run, setup, sink, db.url);

  const rows: string[] = [];
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    say(`\n› round ${round} of ${ROUNDS}`);
    const postfix = await runBaseline(run, setup, sink, PEER_CONCURRENCY, dbCpu, {
      label: `Postfix + OpenDKIM (round ${round})`,
      url: peer.url,
      cpuMs: peer.cpuMs,
    });
    const mailroom = await runMailroom(run, setup, sink, worker.child, dbCpu);
    mailroom.label = `Mailroom (round ${round})`;
    // Mailroom losing, duplicating or leaving a message unsigned fails the bench. Postfix's own at-least-once
    // retries (a sink reply it timed out on, under load, delivered again a round later) are its behaviour,
    // not the bench's fault: they are shown in its row's check cell (✗) and the run goes on.
    if (!mailroom.check.ok) throw new Error("Mailroom lost, duplicated or left unsigned a message");
    if (!postfix.check.ok) say(`  Postfix's round ${round} is flagged: ${checkCell(postfix.check)}`);
    rows.push(row(postfix, postfix.peerCpuMs));
    rows.push(row(mailroom, mailroom.senderCpuMs + (mailroom.postgresCpuMs ?? 0)));
    ratios.push(perSecond(mailroom) / perSecond(postfix));
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as number;
  const concurrency = loadConfig(process.env).worker.concurrency;
  const body = [
    `Run ${new Date().toISOString().slice(0, 16)}Z (${COMMAND}), ${os.availableParallelism()} CPUs, load before ` +
      `${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}. ` +
      `${int(SETTINGS.emails)} messages per side and round after ${int(SETTINGS.warmup)} of warm-up, the sides ` +
      `alternating. Postfix 3 (Debian, default limits, destination concurrency 20, no chroot) with OpenDKIM as a ` +
      `milter (RSA-2048, relaxed/relaxed) receives from nodemailer's pool (${PEER_CONCURRENCY} connections) and ` +
      `relays to the sink; Mailroom accepts through core in transactions of ${SETTINGS.batch} and its worker ` +
      `(concurrency ${concurrency}) delivers to the same sink. "Own CPU" is Postfix's and OpenDKIM's processes, or ` +
      `Mailroom's worker and Postgres; "machine CPU" is every process over the period, client and sink included.`,
    "",
    "| side | signed messages/s | own CPU ms/message | machine CPU ms/message | check |",
    "|---|---:|---:|---:|---|",
    ...rows,
    "",
    `Mailroom / Postfix + OpenDKIM: ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")} (median ` +
      `${median.toFixed(2)}×); goal ≥ ${GOAL}×: ${mark(median >= GOAL)}.`,
  ].join("\n");
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n\n› wrote BENCHMARKS.md`);
  return 0;
}

await runBenchmark(HARD_LIMIT_MS, main);
