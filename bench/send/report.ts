/** Figures and the BENCHMARKS.md section of bench/send/main.ts. */
import os from "node:os";
import { int, mark, ms, pct } from "../shared/benchmarks-file.ts";
import type { AcceptCeiling } from "./ceiling.ts";
import {
  BATCH_SIZE,
  emailsPerRequest,
  type LoadReport,
  type PhaseStats,
  type ScenarioKind,
} from "./protocol.ts";

export const SECTION_HEADING = "## Sending API (make bench)";

/** Issue 21's goals: against the naive durable build, and the batch against its own database ceiling. */
export const TARGETS = { durableRatio: 2.0, sendP99Ms: 50, batchCeilingShare: 0.85, apiRssMb: 150 };

export interface RowCheck {
  ok: boolean;
  /** Rows the table gained over the measured phase. */
  added: number;
  /** Emails the 2xx answers reported (2xx × emails per request when every answer is as expected). */
  reported: number;
  /** Rows of requests written but unanswered when the clock stopped (they may commit after it). */
  cutOff: number;
  problem?: string;
}

export interface ScenarioResult {
  kind: ScenarioKind;
  label: string;
  load: Omit<LoadReport, "ids">;
  ok2xx: number;
  server: PhaseStats;
  loadCpuMs: number;
  /** Our Postgres server's CPU over the phase, when measurable (embedded server on Linux). */
  postgresCpuMs?: number;
  machineBusy: number;
  rows: RowCheck;
}

export interface RunInfo {
  date: Date;
  command: string;
  database: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  poolSize: number;
  logLevel: string;
  /** How the API process ran: the chart's `api.nodeFlags` and the environment it sets (`api.mallocArenaMax`). */
  apiProcess: { nodeFlags: string[]; env: Record<string, string> };
  loadBefore: number[];
  loadAfter: number[];
}

const postgresCpu = (r: ScenarioResult) =>
  r.postgresCpuMs === undefined ? "n/a" : pct(r.postgresCpuMs / 1000 / r.load.seconds);

export const reqPerSec = (r: ScenarioResult) => r.ok2xx / r.load.seconds;
export const emailsPerSec = (r: ScenarioResult) => (r.ok2xx * emailsPerRequest(r.kind)) / r.load.seconds;

/** Non-2xx answers and transport errors, as `none` or `429×3, errors 2`. */
function failures(r: ScenarioResult): string {
  const codes = Object.entries(r.load.statusCounts)
    .filter(([code]) => !code.startsWith("2"))
    .map(([code, count]) => `${code}×${count}`);
  if (r.load.errors > 0) codes.push(`errors ${r.load.errors}`);
  if (r.load.timeouts > 0) codes.push(`timeouts ${r.load.timeouts}`);
  return codes.length === 0 ? "none" : codes.join(", ");
}

function rowsCell(r: ScenarioResult): string {
  const per = emailsPerRequest(r.kind);
  const cut = r.rows.cutOff > 0 ? ` (+${int(r.rows.cutOff)} cut off)` : "";
  if (!r.rows.ok) return `✗ ${r.rows.problem ?? "mismatch"}`;
  return `✓ ${int(r.rows.reported)} = 2xx${per > 1 ? ` × ${per}` : ""}${cut}`;
}

/** One progress line, printed as each scenario ends. */
export function summaryLine(r: ScenarioResult): string {
  return (
    `  ${r.label}: ${int(reqPerSec(r))} req/s, ${int(emailsPerSec(r))} emails/s, p50 ${ms(r.load.latency.p50)} ms, ` +
    `p99 ${ms(r.load.latency.p99)} ms, non-2xx ${failures(r)}, rows ${rowsCell(r)}, ` +
    `server RSS peak ${r.server.rssPeakMb.toFixed(0)} MB, server CPU ${pct(r.server.cpuMs / 1000 / r.server.seconds)}, ` +
    `load-gen CPU ${pct(r.loadCpuMs / 1000 / r.load.seconds)}, Postgres CPU ${postgresCpu(r)}, ` +
    `machine ${pct(r.machineBusy)} busy, server GC ${r.server.gc.pausedMs.toFixed(0)} ms ` +
    `(longest ${r.server.gc.longestMs.toFixed(1)}), event-loop delay p99 ${r.server.loopDelayP99Ms.toFixed(1)} ms`
  );
}

export interface Verdict {
  ratio: number;
  lines: string[];
  allMet: boolean;
}

export function verdict(results: ScenarioResult[], ceiling?: AcceptCeiling): Verdict {
  const get = (kind: ScenarioKind) => results.find((r) => r.kind === kind);
  const durable = get("durable");
  const send = get("send");
  const batch = get("batch");
  const ratio = durable && send ? reqPerSec(send) / reqPerSec(durable) : 0;
  const share = batch && ceiling ? emailsPerSec(batch) / ceiling.emailsPerSec : 0;
  const apiRss = Math.max(send?.server.rssHwmMb ?? 0, batch?.server.rssHwmMb ?? 0);
  const checks = [
    [
      `single send ≥ ${TARGETS.durableRatio.toFixed(1)}× the naive durable build's req/s (stock graphile-worker install): ${ratio.toFixed(2)}×`,
      ratio >= TARGETS.durableRatio,
    ],
    [
      `single send p99 ≤ ${TARGETS.sendP99Ms} ms: ${ms(send?.load.latency.p99 ?? Number.NaN)} ms`,
      (send?.load.latency.p99 ?? Number.POSITIVE_INFINITY) <= TARGETS.sendP99Ms,
    ],
    [
      `batch ≥ ${pct(TARGETS.batchCeilingShare)} of the database-only ceiling: ${pct(share)} (${int(batch ? emailsPerSec(batch) : 0)} of ${int(ceiling?.emailsPerSec ?? 0)} emails/s)`,
      share >= TARGETS.batchCeilingShare,
    ],
    [
      `API RSS ≤ ${TARGETS.apiRssMb} MB under load: ${apiRss.toFixed(0)} MB (kernel peak, VmHWM)`,
      apiRss > 0 && apiRss <= TARGETS.apiRssMb,
    ],
  ] as const;
  return {
    ratio,
    lines: checks.map(([text, ok]) => `- ${text} ${mark(ok)}`),
    allMet: checks.every(([, ok]) => ok),
  };
}

/** CPU per request of every process a scenario ran (server, Postgres, load generator), in ms. */
function cpuPerRequest(
  r: ScenarioResult,
): { server: number; postgres: number; load: number; total: number } | undefined {
  if (r.postgresCpuMs === undefined || r.ok2xx === 0) return undefined;
  const server = r.server.cpuMs / r.ok2xx;
  const postgres = r.postgresCpuMs / r.ok2xx;
  const load = r.loadCpuMs / r.ok2xx;
  return { server, postgres, load, total: server + postgres + load };
}

/** The single-send goal as a CPU budget per request, from the same run's measurements. */
function budgetLines(results: ScenarioResult[]): string[] {
  const per = (kind: ScenarioKind) => {
    const r = results.find((x) => x.kind === kind);
    const cpu = r && cpuPerRequest(r);
    return r && cpu ? { r, cpu } : undefined;
  };
  const durable = per("durable");
  const send = per("send");
  if (!durable || !send) return [];
  const f = (x: number) => x.toFixed(2);
  const spends = (name: string, c: NonNullable<ReturnType<typeof cpuPerRequest>>) =>
    `${name} spends ${f(c.total)} ms (server ${f(c.server)}, Postgres ${f(c.postgres)}, load generator ${f(c.load)})`;
  const cores = os.availableParallelism();
  const target = TARGETS.durableRatio * reqPerSec(durable.r);
  const most = (cores * 1000) / send.cpu.total;
  return [
    `CPU budget, from the same run: ${int(target)} req/s (${TARGETS.durableRatio}× the naive durable build) on ${cores} ` +
      `cores allows ${f((cores * 1000) / target)} ms of CPU per request, every process included. ` +
      `${spends("The naive durable build", durable.cpu)}; ${spends("POST /v1/send", send.cpu)}, so even with ` +
      `the machine 100 % busy it could answer at most ${int(most)} req/s ` +
      `(${(most / reqPerSec(durable.r)).toFixed(2)}× the naive durable build).`,
    "",
  ];
}

/** Inside the API process, per scenario: GC pauses, event-loop delay, and what its RSS peak was made of. */
function insideApiLines(results: ScenarioResult[]): string[] {
  const api = results.filter((r) => r.kind === "send" || r.kind === "batch");
  if (api.length === 0) return [];
  const f = (x: number) => x.toFixed(0);
  const parts = api.map(({ label, server: s }) => {
    const rest = s.rssPeakMb - s.atPeak.heapTotalMb - s.atPeak.externalMb;
    return (
      `${label}: GC paused the main thread ${int(s.gc.count)} times, ${f(s.gc.pausedMs)} ms in all ` +
      `(${pct(s.gc.pausedMs / 1000 / s.seconds)} of the phase, longest ${s.gc.longestMs.toFixed(1)} ms), ` +
      `event-loop delay p99 ${s.loopDelayP99Ms.toFixed(1)} ms; its sampled RSS peak of ${f(s.rssPeakMb)} MB was ` +
      `V8's heap ${f(s.atPeak.heapTotalMb)} MB (${f(s.atPeak.heapUsedMb)} in use), external memory ` +
      `${f(s.atPeak.externalMb)} MB and ${f(rest)} MB of code and native memory (Node's binary, OpenSSL, malloc)`
    );
  });
  return [`Inside the API process (its own perf_hooks and process.memoryUsage): ${parts.join("; ")}.`, ""];
}

/** What the database alone does with the batch's work, beside the batch target. */
function ceilingLine(c: AcceptCeiling): string {
  const cpu = c.postgresCpu === undefined ? "" : ` with Postgres at ${pct(c.postgresCpu)} CPU`;
  return (
    `Ceiling, measured in the same run: the batch's database work alone — core's \`acceptEmails\` called from the ` +
    `orchestrator, ${BATCH_SIZE} emails per transaction, ${c.inFlight} transactions in flight, no HTTP, TLS, JSON, ` +
    `validation or authentication in front of it — accepts **${int(c.emailsPerSec)} emails/s**${cpu} ` +
    `(${int(c.emails)} emails in ${c.seconds.toFixed(1)} s), writing ${(c.walBytesPerEmail / 1024).toFixed(1)} kB ` +
    "of WAL per email (the server's whole WAL over the period, autovacuum included)."
  );
}

/** The body of the BENCHMARKS.md section (the heading is added by the writer). */
export function sectionBody(results: ScenarioResult[], info: RunInfo, ceiling?: AcceptCeiling): string {
  const v = verdict(results, ceiling);
  const vs = (kind: ScenarioKind) => {
    const base = results.find((r) => r.kind === kind);
    const send = results.find((r) => r.kind === "send");
    return base && send ? (reqPerSec(send) / reqPerSec(base)).toFixed(2) : "n/a";
  };
  const rows = results.map(
    (r) =>
      `| ${r.label} | ${int(reqPerSec(r))} | ${int(emailsPerSec(r))} | ${ms(r.load.latency.p50)} | ` +
      `${ms(r.load.latency.p99)} | ${failures(r)} | ${rowsCell(r)} | ${r.server.rssPeakMb.toFixed(0)} ` +
      `(${r.server.rssMeanMb.toFixed(0)}) | ${r.server.rssHwmMb.toFixed(0)} | ${pct(r.server.cpuMs / 1000 / r.server.seconds)} | ` +
      `${pct(r.loadCpuMs / 1000 / r.load.seconds)} | ${postgresCpu(r)} | ${pct(r.machineBusy)} |`,
  );
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  return [
    `Run ${info.date.toISOString().replace(/\.\d+Z$/, "Z")} with \`${info.command}\` on ${os.availableParallelism()} CPUs ` +
      `(\`nproc\`; ${cpu}), Node ${process.version}, ${os.platform()} ${os.release()}. Load average ` +
      `(1, 5, 15 min) ${load(info.loadBefore)} before and ${load(info.loadAfter)} after: other work shared ` +
      "this machine during the run.",
    "",
    `Each scenario: ${info.warmupSeconds} s warm-up (not counted), then ${info.seconds} s measured with autocannon in a ` +
      `separate process, ${info.connections} keep-alive connections over TLS on 127.0.0.1, on one ${info.database} ` +
      "(the naive durable build in a database of its own on that server). " +
      `Servers run in their own process (RSS and CPU are theirs alone); each holds ${info.poolSize} Postgres ` +
      `connections. The API runs as the chart runs it: flags \`${info.apiProcess.nodeFlags.join(" ") || "none"}\`, ` +
      `environment \`${
        Object.entries(info.apiProcess.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ") || "none"
      }\`, and a compile cache warmed beforehand with those flags, as the image is built ` +
      "(scripts/image/warm-compile-cache.mjs: Node's TypeScript stripper is then never loaded); the " +
      `baseline with Node's defaults. The API logs at \`${info.logLevel}\` (to /dev/null); rate limits are checked on every request ` +
      "but set far above what one machine can send; every single send and every batch item carries a fresh " +
      "idempotency key.",
    "",
    "| scenario | req/s | emails/s | p50 ms | p99 ms | non-2xx | rows check | server RSS MB sampled peak (mean) | kernel peak RSS MB | server CPU | load-gen CPU | Postgres CPU | machine busy |",
    "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    `Single send / naive durable build: **${v.ratio.toFixed(2)}×** req/s (/ bare INSERT: ${vs("baseline")}×). ` +
      "Goals (issue 21; 2-core machine, load generator included):",
    "",
    ...v.lines,
    "",
    ...insideApiLines(results),
    ...(ceiling ? [ceilingLine(ceiling), ""] : []),
    ...budgetLines(results),
    "Scenarios: **baseline** is a bare Fastify route over node:https with the same kind of certificate, one INSERT " +
      "per request into a simple table (no auth, validation or logging); **naive durable** is the same route as a " +
      "team would make it durable with the same stack: one transaction per request (`begin`, the INSERT, " +
      "`select graphile_worker.add_job(…)`, `commit`, one round trip each), so a 2xx means the row and its job " +
      "are both committed. It runs on a **stock graphile-worker install**: its own database, where graphile-worker's " +
      "own migrations (`runMigrations`, the version Mailroom depends on) created the schema, with none of " +
      "Mailroom's migrations or settings (Mailroom forces generic plans and turns sequential scans off inside " +
      "graphile-worker's functions in its own database; ADR 0008), and no worker running. " +
      "**POST /v1/send** is the real API " +
      "(`startApiServer` as built: first-byte TLS gate, its request hooks — key lookup, rate limits —, schema and " +
      "field validation, idempotency, group commit of email row, event, idempotency record and job); **POST /v1/send/batch** sends 100 emails per " +
      "request, one transaction each.",
    "",
    "Rows check: every id a 2xx answer reported (row id or messageId) is distinct and found exactly once in the " +
      "table (for the naive durable build: with its job in graphile-worker's job table, both in its own database), " +
      "their number is 2xx × emails " +
      "per request, and the table grew by exactly that plus at most the " +
      "requests written but unanswered when the clock stopped (autocannon drops in-flight requests at the end; " +
      "the server still commits them: shown as “cut off”). CPU is the share of one core; machine busy is the " +
      "share of all cores, every process included. RSS is sampled every 100 ms by the server itself (peak and " +
      "mean over the measured phase) and read as the kernel's high-water mark (VmHWM in /proc/<pid>/status, " +
      "over the process's life: warm-up and, for the API, both its scenarios), which no sampling gap can miss.",
  ].join("\n");
}
