/**
 * Fair delivery across accounts (issue 31 item 3, ADR 0053, ADR 0064): one tenant floods at its full
 * per-second quota while another sends a steady 10 emails/s; the quiet tenant's accept → delivered p50/p99 is
 * reported beside its figure on an idle system, measured first in the same run, on the same database and sink,
 * with the headline design's worker processes (`topology.ts`). The flood then runs on each design, every one
 * with the same flood: the reserved lane in a process of its own (the chart's default,
 * `worker.reservedLane.separate`; BENCH_FAIRNESS_HEADLINE=in-process puts the idle baseline and the headline
 * ratio on the other) and in the worker's own process (BENCH_FAIRNESS_IN_PROCESS_FIRST=1 runs it first, to
 * tell the order's effect from the design's), priority alone (the worker restarted without its reserved lane,
 * ADR 0053's design) and the enqueue of before ADR 0053 (one priority for every job: first in, first out).
 * With BENCH_FAIRNESS_CGROUPS=1 (root, cgroup v1) every phase runs with each process in the CPU group the
 * kubelet would give the pod it stands for, by the chart's default requests (`cgroups.ts`), and the headline
 * design's idle and flood phases run again without, beside them. Each phase ends only when everything
 * accepted has reached the sink exactly once, DKIM-signed (a sample verified by mailauth), and every row is
 * `delivered`; each phase says where the quiet emails' time went (`steps.ts`).
 *
 * Processes: this orchestrator (setup, accepts, checks), the SMTP sink and the Mailroom worker processes
 * (bench/delivery's `sink.ts` and `worker.ts`); loopback only; bounded in count and time; everything stops
 * on success, error or Ctrl-C.
 *
 * Run: `make bench-fairness` or `npx node bench/fairness/main.ts` (niced on a shared machine). DATABASE_URL:
 * a fresh database on that server instead of a throwaway embedded Postgres. BENCH_FAIRNESS_FLOOD_RATE
 * (1000): the flood's quota and offered emails/s; BENCH_FAIRNESS_QUIET_RATE (10); BENCH_FAIRNESS_SECONDS
 * (20): how long the quiet tenant sends in each phase; BENCH_FAIRNESS_LEAD (5): seconds the flood starts
 * ahead; BENCH_FAIRNESS_PRIORITY_ONLY=0 skips the phase without the reserved lane, BENCH_FAIRNESS_FIFO=0 the
 * first-in-first-out one. MAILROOM_* variables tune the worker as they would `mailroom worker`.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate } from "@mailroom/core/db";
import { ACCEPT_POOL, acceptBatches, checkRows, type DeliveryRun, setUp } from "../delivery/setup.ts";
import { startSink } from "../delivery/sink-control.ts";
import { traceJobs, untraceJobs } from "../delivery/stages.ts";
import { commandLine, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { openBenchDatabase } from "../shared/support.ts";
import { openCpuGroups, postmasterOf } from "./cgroups.ts";
import { withFifoEnqueue } from "./fifo.ts";
import { type PhaseResult, type PhaseSpec, runPhase } from "./phase.ts";
import { phaseLine, type RunInfo, SECTION_HEADING, sectionBody } from "./report.ts";
import { type StepBreakdown, stepBreakdown, stepLines } from "./steps.ts";
import { setUpTenants } from "./tenants.ts";
import { startWorkers, type Topology } from "./topology.ts";

const envNumber = (name: string, fallback: number, min = 1) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
};
const FLOOD_RATE = envNumber("BENCH_FAIRNESS_FLOOD_RATE", 1000, 100);
const QUIET_RATE = envNumber("BENCH_FAIRNESS_QUIET_RATE", 10);
const SECONDS = envNumber("BENCH_FAIRNESS_SECONDS", 20);
const LEAD = envNumber("BENCH_FAIRNESS_LEAD", 5, 0);
const FIFO = process.env.BENCH_FAIRNESS_FIFO !== "0";
const PRIORITY_ONLY = process.env.BENCH_FAIRNESS_PRIORITY_ONLY !== "0";
const IN_PROCESS_FIRST = process.env.BENCH_FAIRNESS_IN_PROCESS_FIRST === "1";
/**
 * The design the idle baseline runs on, whose ratio is the headline: the chart's default
 * (`worker.reservedLane.separate`) unless BENCH_FAIRNESS_HEADLINE names the other.
 */
const HEADLINE = ((): "separate" | "in-process" => {
  const value = process.env.BENCH_FAIRNESS_HEADLINE ?? "separate";
  if (value !== "separate" && value !== "in-process")
    throw new Error("BENCH_FAIRNESS_HEADLINE must be separate or in-process");
  return value;
})();
const FLOOD_LABEL = {
  separate: "reserved lane in its own process (ADR 0064's amendment, the chart's default)",
  "in-process": "reserved lane in the worker's process (ADR 0064)",
} as const;
const CGROUPS = process.env.BENCH_FAIRNESS_CGROUPS === "1";
const WARMUP = 300;
// Five phases on a loaded shared machine: a flood phase has taken up to 7 minutes.
const HARD_LIMIT_MS = 50 * 60_000;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(onCleanup: OnCleanup): Promise<number> {
  const loadBefore = os.loadavg();
  say(
    `Fairness benchmark on ${os.availableParallelism()} CPUs, Node ${process.version}, load ${loadBefore.join(" ")}`,
  );
  const tmp = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-fairness-"));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  // Under root, the embedded Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(tmp, 0o755);
  say("› starting Postgres and migrating");
  // Commit timestamps: latency is measured from the moment Postgres committed each accept.
  const db = await openBenchDatabase(tmp, { track_commit_timestamp: "on" });
  onCleanup(() => db.close());
  await migrate({ url: db.url });
  const pool = createPool({ url: db.url, max: ACCEPT_POOL, applicationName: "bench-fairness" });
  onCleanup(() => pool.end());
  const run: DeliveryRun = {
    say,
    onCleanup,
    settings: {
      emails: 0,
      warmup: WARMUP,
      batch: 100,
      rate: QUIET_RATE,
      latencySeconds: SECONDS,
      profileArgs: [],
      serverLogs: Boolean(process.env.BENCH_SERVER_LOGS),
    },
  };
  const setup = await setUp(pool, say);
  const tenants = await setUpTenants(setup, FLOOD_RATE);
  const sink = await startSink(run);
  if (CGROUPS && process.env.DATABASE_URL)
    throw new Error("BENCH_FAIRNESS_CGROUPS=1 needs the embedded Postgres");
  const groups = CGROUPS ? await openCpuGroups(onCleanup) : undefined;
  // Step timings of the quiet tenant's deliveries (steps.ts): the workers' spans, the jobs' fetch times.
  const spansFile = path.join(tmp, "quiet-spans.jsonl");
  const traceEnv = { BENCH_TRACE_FILE: spansFile, BENCH_TRACE_ACCOUNT: tenants.quiet.account };
  await traceJobs(pool);
  onCleanup(() => untraceJobs(pool).catch(() => undefined));
  let workers = await startWorkers(run, setup, sink, db.url, HEADLINE, traceEnv);
  const restart = async (topology: Topology) => {
    if (workers.topology === topology) return;
    await workers.stop();
    workers = await startWorkers(run, setup, sink, db.url, topology, traceEnv);
  };

  say(`› warm-up: ${WARMUP} emails`);
  const warm = await acceptBatches(setup, 100, 0, WARMUP);
  await sink.waitFor(WARMUP, "warm-up", performance.timeOrigin + performance.now());
  const warmRows = await checkRows(setup, warm);
  if (!warmRows.ok) throw new Error(`warm-up: ${warmRows.text}`);

  const counter = { next: WARMUP };
  const spec = (label: string, floodRate: number, cpuGroups: boolean): PhaseSpec => ({
    label,
    floodRate,
    floodBatch: 100,
    leadSeconds: LEAD,
    quietRate: QUIET_RATE,
    quietSeconds: SECONDS,
    cpuGroups,
  });
  // Each component in the CPU group of the pod it stands for (cgroups.ts), or every one back in the root group.
  const postmaster = groups ? await postmasterOf(tmp) : undefined;
  const place = async (inGroups: boolean) =>
    groups?.place(
      [
        { pid: process.pid, role: "api" },
        { pid: sink.pid, role: "sink" },
        { pid: postmaster, role: "postgres" },
        ...workers.processes,
      ],
      inGroups,
    );
  const results: PhaseResult[] = [];
  const breakdowns = new Map<PhaseResult, StepBreakdown>();
  let letter = 0;
  const phase = async (text: string, floodRate: number, inGroups: boolean) => {
    await place(inGroups);
    const suffix = groups ? (inGroups ? ", CPU groups by the chart's requests" : ", no CPU groups") : "";
    const label = `(${String.fromCharCode(97 + letter++)}) ${text}${suffix}`;
    const result = await runPhase(tenants, sink, spec(label, floodRate, inGroups), counter, say);
    say(phaseLine(result));
    results.push(result);
    const steps = await stepBreakdown(pool, spansFile, result.quietTimes);
    breakdowns.set(result, steps);
    for (const line of stepLines("    where the time goes", steps)) if (line) say(`    ${line}`);
    return result;
  };
  // With CPU groups every design runs in them; the headline design also without, beside (nothing hidden).
  const idles = [await phase(`idle: quiet tenant alone (${FLOOD_LABEL[HEADLINE]})`, 0, Boolean(groups))];
  if (groups) idles.push(await phase(`idle: quiet tenant alone (${FLOOD_LABEL[HEADLINE]})`, 0, false));
  const floods: PhaseResult[] = [];
  let headline: PhaseResult | undefined;
  const reservedOrder: Array<keyof typeof FLOOD_LABEL> = IN_PROCESS_FIRST
    ? ["in-process", "separate"]
    : ["separate", "in-process"];
  for (const topology of reservedOrder) {
    await restart(topology);
    const result = await phase(`flood, ${FLOOD_LABEL[topology]}`, FLOOD_RATE, Boolean(groups));
    if (topology === HEADLINE) headline = result;
    floods.push(result);
    if (groups && topology === HEADLINE)
      floods.push(await phase(`flood, ${FLOOD_LABEL[topology]}`, FLOOD_RATE, false));
  }
  const reservedConcurrency = loadConfig(process.env).worker.reservedConcurrency;
  const concurrency = workers.concurrency;
  // The alternatives run on a worker without the reserved lane, as before ADR 0064.
  if (PRIORITY_ONLY || FIFO) await restart("priority-only");
  if (PRIORITY_ONLY) floods.push(await phase("flood, priority only (ADR 0053)", FLOOD_RATE, Boolean(groups)));
  if (FIFO)
    floods.push(
      await withFifoEnqueue(pool, db.url, () =>
        phase("flood, first in first out (before)", FLOOD_RATE, Boolean(groups)),
      ),
    );
  if (!headline) throw new Error("the headline design's flood phase did not run");

  const info: RunInfo = {
    date: new Date(),
    command: commandLine("bench/fairness/main.ts", [
      "DATABASE_URL",
      "BENCH_FAIRNESS_FLOOD_RATE",
      "BENCH_FAIRNESS_QUIET_RATE",
      "BENCH_FAIRNESS_SECONDS",
      "BENCH_FAIRNESS_LEAD",
      "BENCH_FAIRNESS_FIFO",
      "BENCH_FAIRNESS_PRIORITY_ONLY",
      "BENCH_FAIRNESS_IN_PROCESS_FIRST",
      "BENCH_FAIRNESS_HEADLINE",
      "BENCH_FAIRNESS_CGROUPS",
      "MAILROOM_WORKER_CONCURRENCY",
      "MAILROOM_WORKER_LOCAL_QUEUE_SIZE",
      "MAILROOM_WORKER_RESERVED_CONCURRENCY",
    ]),
    database: db.describe,
    concurrency,
    reservedConcurrency,
    headline: HEADLINE,
    ...(groups ? { shares: groups.shares } : {}),
    loadBefore,
    loadAfter: os.loadavg(),
  };
  const body = sectionBody(idles, headline, floods, info, breakdowns);
  await writeBenchmarkSection(SECTION_HEADING, body);
  say(`\n${SECTION_HEADING}\n\n${body}\n`);
  say("› wrote BENCHMARKS.md");
  const ok = results.every((r) => r.check.ok);
  if (!ok) console.error("fairness check FAILED: see the check column above");
  return ok ? 0 : 1;
}

await runBenchmark(HARD_LIMIT_MS, main);
