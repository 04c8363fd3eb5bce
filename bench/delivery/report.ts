/** Checks, figures and the BENCHMARKS.md section of bench/delivery/main.ts. */
import os from "node:os";
import { int, mark, ms, pct } from "../shared/benchmarks-file.ts";
import type { Arrival, SinkReport } from "./protocol.ts";
import { ceilingLine, type SigningCeiling } from "./signing.ts";
import { type StageBreakdown, stageLines } from "./stages.ts";

export const SECTION_HEADING = "## Delivery (make bench)";

/** Issue 21's goals: durable delivery at least as fast as the fire-and-forget pool, and the latency bounds. */
export const TARGETS = { throughputRatio: 1, latencyP50Ms: 25, latencyP99Ms: 100 };

/** Did every expected Message-ID arrive exactly once, DKIM-signed, and nothing else? */
export interface ArrivalCheck {
  ok: boolean;
  expected: number;
  /** Expected Message-IDs seen at least once. */
  arrived: number;
  missing: number;
  /** Extra copies of expected Message-IDs. */
  duplicates: number;
  /** Messages the sink got that were not expected (other Message-IDs, or none). */
  unexpected: number;
  unsigned: number;
  /** Sampled messages whose DKIM signatures an independent verifier (mailauth) found valid. */
  dkim: { pass: number; sampled: number; problems: string[] };
}

export function checkArrivals(
  expected: ReadonlySet<string>,
  report: SinkReport,
  dkim: ArrivalCheck["dkim"],
): { check: ArrivalCheck; byId: Map<string, Arrival> } {
  const byId = new Map<string, Arrival>();
  let duplicates = 0;
  let unexpected = report.withoutId;
  let unsigned = 0;
  for (const arrival of report.arrivals) {
    const [id, , count, signed] = arrival;
    if (!expected.has(id)) {
      unexpected += count;
      continue;
    }
    byId.set(id, arrival);
    duplicates += count - 1;
    if (!signed) unsigned += 1;
  }
  const missing = expected.size - byId.size;
  const check: ArrivalCheck = {
    ok:
      missing === 0 &&
      duplicates === 0 &&
      unexpected === 0 &&
      unsigned === 0 &&
      dkim.sampled > 0 &&
      dkim.pass === dkim.sampled,
    expected: expected.size,
    arrived: byId.size,
    missing,
    duplicates,
    unexpected,
    unsigned,
    dkim,
  };
  return { check, byId };
}

export interface ThroughputResult {
  label: string;
  emails: number;
  seconds: number;
  /** CPU of the sending process (the baseline's sender, or the Mailroom worker), user + system. */
  senderCpuMs: number;
  senderRssPeakMb?: number;
  sinkCpuMs: number;
  postgresCpuMs?: number | undefined;
  /** bench/peer/main.ts: CPU of the signing peer's processes (Postfix and OpenDKIM). */
  peerCpuMs?: number;
  machineBusy: number;
  check: ArrivalCheck;
  /** Mailroom only: emails accepted per second while the worker delivered. */
  acceptPerSecond?: number;
  /** Mailroom only: the emails' rows, all expected `delivered`. */
  rows?: { ok: boolean; text: string };
  errors: string[];
}

export interface LatencyResult {
  /** What latencies count from: Postgres's commit timestamp, or the time the orchestrator saw the commit. */
  clock: "postgres" | "observed";
  rate: number;
  seconds: number;
  emails: number;
  /** Accepts committed per second over the offered period (first scheduled to last committed). */
  acceptRate: number;
  /** Time from an accept's scheduled start to its commit, ms (queueing for a connection included). */
  accept: { p50: number; p99: number; max: number };
  latency: { min: number; p50: number; p90: number; p99: number; max: number };
  /** From the first scheduled accept to the sink's last receipt: the period CPU shares refer to. */
  periodSeconds: number;
  workerCpuMs: number;
  postgresCpuMs?: number | undefined;
  machineBusy: number;
  check: ArrivalCheck;
  rows: { ok: boolean; text: string };
  stages?: StageBreakdown;
}

export interface RunInfo {
  date: Date;
  command: string;
  database: string;
  concurrency: number;
  workerPoolSize: number;
  logLevel: string;
  batch: number;
  warmup: number;
  /** RSA-2048 DKIM signatures/s of this machine, measured in the same run (bench/delivery/signing.ts). */
  signing: SigningCeiling;
  loadBefore: number[];
  loadAfter: number[];
}

const cpu = (cpuMs: number | undefined, seconds: number) =>
  cpuMs === undefined ? "n/a" : pct(cpuMs / 1000 / seconds);

export const perSecond = (r: ThroughputResult) => r.check.arrived / r.seconds;

export function checkCell(c: ArrivalCheck): string {
  const dkim = `DKIM-Signature on all, mailauth ${c.dkim.pass}/${c.dkim.sampled} pass`;
  if (c.ok) return `✓ ${int(c.arrived)}/${int(c.expected)} once each; ${dkim}`;
  const problems = [
    c.missing > 0 ? `${int(c.missing)} missing` : "",
    c.duplicates > 0 ? `${int(c.duplicates)} duplicates` : "",
    c.unexpected > 0 ? `${int(c.unexpected)} unexpected` : "",
    c.unsigned > 0 ? `${int(c.unsigned)} without DKIM-Signature` : "",
    c.dkim.pass < c.dkim.sampled || c.dkim.sampled === 0
      ? `mailauth ${c.dkim.pass}/${c.dkim.sampled} pass ${c.dkim.problems.join("; ")}`
      : "",
  ].filter(Boolean);
  return `✗ ${problems.join(", ")}`;
}

export function throughputLine(r: ThroughputResult): string {
  return (
    `  ${r.label}: ${int(perSecond(r))} delivered emails/s (${int(r.check.arrived)} in ${r.seconds.toFixed(2)} s), ` +
    `sender CPU ${cpu(r.senderCpuMs, r.seconds)}, sink CPU ${cpu(r.sinkCpuMs, r.seconds)}, ` +
    `Postgres CPU ${cpu(r.postgresCpuMs, r.seconds)}, machine ${pct(r.machineBusy)} busy; ` +
    `${checkCell(r.check)}${r.rows ? `; rows ${r.rows.text}` : ""}` +
    (r.errors.length > 0 ? `; errors: ${r.errors.join(" | ")}` : "")
  );
}

export function latencyLine(r: LatencyResult): string {
  const l = r.latency;
  return (
    `  (c) latency at ${r.rate}/s offered: p50 ${ms(l.p50)} ms, p90 ${ms(l.p90)} ms, p99 ${ms(l.p99)} ms, ` +
    `max ${ms(l.max)} ms (min ${ms(l.min)}); accepts ${int(r.acceptRate)}/s, schedule→commit p50 ` +
    `${ms(r.accept.p50)} p99 ${ms(r.accept.p99)} ms; worker CPU ${cpu(r.workerCpuMs, r.periodSeconds)}, ` +
    `Postgres CPU ${cpu(r.postgresCpuMs, r.periodSeconds)}, machine ${pct(r.machineBusy)} busy; ${checkCell(r.check)}; ` +
    `rows ${r.rows.text}`
  );
}

/**
 * The target as a CPU budget per message, from the same run's measurements: what 2× the baseline leaves per
 * message once the signature and the sink are paid, beside what the baseline itself and Mailroom spend.
 */
export function cpuBudgetLine(
  baseline: ThroughputResult,
  mailroom: ThroughputResult,
  signing: { oneCore: number },
): string {
  const cores = os.availableParallelism();
  const target = TARGETS.throughputRatio * perSecond(baseline);
  const budget = (cores * 1000) / target;
  const sign = 1000 / signing.oneCore;
  const sink = baseline.sinkCpuMs / baseline.check.arrived;
  const left = budget - sign - sink;
  const nodemailer = baseline.senderCpuMs / baseline.check.arrived - sign;
  const ours = (mailroom.senderCpuMs + (mailroom.postgresCpuMs ?? 0)) / mailroom.check.arrived - sign;
  const msg = (x: number) => x.toFixed(2);
  return (
    `CPU budget, from the same run: ${int(target)} emails/s on ${cores} cores leaves ${msg(budget)} ms of CPU per ` +
    `message. The RSA signature takes ${msg(sign)} ms and the sink ${msg(sink)} ms, which leaves ${msg(left)} ms ` +
    "for composing, SMTP, queueing and Postgres together. The baseline's nodemailer pool alone, with no " +
    `database or queue, spends ${msg(nodemailer)} ms per message outside the signature; Mailroom's worker and ` +
    `Postgres together spend ${msg(ours)} ms${mailroom.postgresCpuMs === undefined ? " (Postgres not measured)" : ""}.`
  );
}

export interface Verdict {
  ratio: number;
  lines: string[];
  allMet: boolean;
}

export function verdict(
  baseline: ThroughputResult,
  mailroom: ThroughputResult,
  latency: LatencyResult,
): Verdict {
  const ratio = perSecond(mailroom) / perSecond(baseline);
  const checks = [
    [
      `signed delivery ≥ ${TARGETS.throughputRatio}× baseline: ${ratio.toFixed(2)}×`,
      ratio >= TARGETS.throughputRatio,
    ],
    [
      `accept-to-handover p50 ≤ ${TARGETS.latencyP50Ms} ms at ${latency.rate}/s: ${ms(latency.latency.p50)} ms`,
      latency.latency.p50 <= TARGETS.latencyP50Ms,
    ],
    [
      `accept-to-handover p99 ≤ ${TARGETS.latencyP99Ms} ms at ${latency.rate}/s: ${ms(latency.latency.p99)} ms`,
      latency.latency.p99 <= TARGETS.latencyP99Ms,
    ],
  ] as const;
  return {
    ratio,
    lines: checks.map(([text, ok]) => `- ${text} ${mark(ok)}`),
    allMet: checks.every(([, ok]) => ok),
  };
}

/** The body of the BENCHMARKS.md section (the heading is added by the writer). */
export function sectionBody(
  baseline: ThroughputResult,
  mailroom: ThroughputResult,
  latency: LatencyResult,
  info: RunInfo,
): string {
  const v = verdict(baseline, mailroom, latency);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
  const model = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const row = (r: ThroughputResult) =>
    `| ${r.label} | ${int(r.check.arrived)} | ${r.seconds.toFixed(2)} | **${int(perSecond(r))}** | ` +
    `${cpu(r.senderCpuMs, r.seconds)} | ${cpu(r.postgresCpuMs, r.seconds)} | ${cpu(r.sinkCpuMs, r.seconds)} | ` +
    `${pct(r.machineBusy)} | ${checkCell(r.check)}${r.rows ? `; rows ${r.rows.text}` : ""} |`;
  const l = latency.latency;
  return [
    `Run ${info.date.toISOString().replace(/\.\d+Z$/, "Z")} with \`${info.command}\` on ${os.availableParallelism()} CPUs ` +
      `(\`nproc\`; ${model}), Node ${process.version}, ${os.platform()} ${os.release()}. Load average ` +
      `(1, 5, 15 min) ${load(info.loadBefore)} before and ${load(info.loadAfter)} after: other work shared ` +
      "this machine during the run.",
    "",
    `Delivered emails per second to a real SMTP sink (smtp-server in its own process on 127.0.0.1, answering 250, ` +
      `tallying Message-IDs), every message DKIM-signed with the same RSA-2048 key of a verified domain, ` +
      `${info.concurrency} sends in flight on both sides, on one ${info.database}. Each side first sends ` +
      `${int(info.warmup)} emails that are not counted.`,
    "",
    "| scenario | emails | seconds | delivered emails/s | sender CPU | Postgres CPU | sink CPU | machine busy | check |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    row(baseline),
    row(mailroom),
    "",
    `Accept-to-handover latency at a fixed offered rate (open loop: accepts start on schedule whether or not ` +
      `earlier ones finished), each accepted through core's group commit as POST /v1/send does (one ` +
      `transaction in flight, the requests that arrive meanwhile sharing the next):`,
    "",
    "| offered | emails | accepts/s | schedule→commit p50 / p99 ms | latency p50 ms | p90 | p99 | max | worker CPU | Postgres CPU | machine busy | check |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    `| ${latency.rate}/s × ${latency.seconds} s | ${int(latency.emails)} | ${int(latency.acceptRate)} | ` +
      `${ms(latency.accept.p50)} / ${ms(latency.accept.p99)} | **${ms(l.p50)}** | ${ms(l.p90)} | **${ms(l.p99)}** | ` +
      `${ms(l.max)} | ${cpu(latency.workerCpuMs, latency.periodSeconds)} | ${cpu(latency.postgresCpuMs, latency.periodSeconds)} | ` +
      `${pct(latency.machineBusy)} | ${checkCell(latency.check)}; rows ${latency.rows.text} |`,
    "",
    ...(latency.stages ? [...stageLines(latency.stages), ""] : []),
    `Mailroom / baseline: **${v.ratio.toFixed(2)}×** delivered emails/s. Goals (issue 21; 2-core machine, everything ` +
      "including Postgres and the sink on it):",
    "",
    ...v.lines,
    "",
    ceilingLine(info.signing, TARGETS.throughputRatio, perSecond(baseline)),
    "",
    cpuBudgetLine(baseline, mailroom, info.signing),
    "",
    "Scenarios: **baseline** is nodemailer's pooled SMTP transport (Mailroom's relay pool options, " +
      `${info.concurrency} connections) with its built-in DKIM signer, ${info.concurrency} \`sendMail\` calls in ` +
      "flight, from its own process straight to the sink: no database, no queue. **Mailroom** is the real " +
      `worker in its own process (\`startWorker\` with \`createTransport\` in relay mode to the sink and ` +
      `\`createSigner\`; concurrency ${info.concurrency}, ${info.workerPoolSize} Postgres connections, log level ` +
      `\`${info.logLevel}\` to /dev/null): claim under lock, compose, DKIM-sign, hand over, record the outcome ` +
      `and timeline events; the emails are accepted by the orchestrator with core's \`acceptEmails\` (what POST ` +
      `/v1/send/batch runs; the HTTP API itself is measured in the section above) in transactions of ` +
      `${info.batch}, while the worker already runs. Its figure runs from the first accept to the sink's last ` +
      "receipt. **Latency** is the time the sink had the whole message (end of DATA) minus the time the " +
      "email's accept transaction had committed, matched by Message-ID: " +
      (latency.clock === "postgres"
        ? "Postgres's own commit timestamp (`track_commit_timestamp`), on the same machine clock as the sink."
        : "the time the orchestrator saw the commit's answer (the server keeps no commit timestamps), which a busy " +
          "machine can delay past the handover: latencies then read short."),
    "",
    "Check: every expected Message-ID reached the sink exactly once, nothing else did, every message carried a " +
      "DKIM-Signature header, a sample of messages verified with mailauth (pass) against the domain's published " +
      "DKIM record, and (Mailroom) every email row ended `delivered`. CPU is the share of one core over the " +
      "measured period; machine busy is the share of all cores, every process included.",
  ].join("\n");
}
