/** Figures and the BENCHMARKS.md section of bench/fairness/main.ts. */
import os from "node:os";
import { int, mark, ms, pct } from "../shared/benchmarks-file.ts";
import { percentile } from "../shared/percentile.ts";
import type { Role, RoleShare } from "./cgroups.ts";
import type { PhaseResult } from "./phase.ts";
import { type StepBreakdown, stepLines } from "./steps.ts";

export const SECTION_HEADING = "## Fair delivery across accounts (make bench)";

/** Issue 31 item 3: under a flood, the quiet tenant's p99 stays within 2× of its figure on an idle system. */
export const TARGET_P99_RATIO = 2;

export interface RunInfo {
  date: Date;
  command: string;
  database: string;
  concurrency: number;
  /** Slots of the reserved lane, for mail within its account's fair share (ADR 0064); 0: none. */
  reservedConcurrency: number;
  /** The design of the idle phase and of the headline ratio. */
  headline: "separate" | "in-process";
  loadBefore: number[];
  loadAfter: number[];
  /** The CPU groups' shares when the run used them (BENCH_FAIRNESS_CGROUPS=1). */
  shares?: Record<Role, RoleShare>;
}

const row = (r: PhaseResult) => {
  const l = r.latencies;
  return (
    `| ${r.spec.label} | ${r.spec.floodRate > 0 ? `${int(r.spec.floodRate)}/s (${int(r.floodEmails)})` : "none"} | ` +
    `${r.spec.quietRate}/s (${int(r.quietEmails)}) | ${ms(percentile(l, 50))} | ${ms(percentile(l, 90))} | ` +
    `**${ms(percentile(l, 99))}** | ${ms(l[l.length - 1] ?? Number.NaN)} | ` +
    `${ms(percentile(r.untilMailFrom, 50))} / ${ms(percentile(r.untilMailFrom, 99))} | ${int(r.floodBacklogPeak)} | ` +
    `${int(r.floodBacklog)} | ${int(r.deliveredPerSecond)} | ${pct(r.machineBusy)} | ${r.check.text} |`
  );
};

export function phaseLine(r: PhaseResult): string {
  const l = r.latencies;
  return (
    `    ${r.spec.label}: quiet p50 ${ms(percentile(l, 50))} ms, p99 ${ms(percentile(l, 99))} ms, ` +
    `max ${ms(l[l.length - 1] ?? Number.NaN)} ms (until MAIL FROM: p50 ${ms(percentile(r.untilMailFrom, 50))}, ` +
    `p99 ${ms(percentile(r.untilMailFrom, 99))} ms); flood backlog peak ${r.floodBacklogPeak}; ` +
    `${int(r.deliveredPerSecond)} delivered/s; ${r.check.text}`
  );
}

export function sectionBody(
  /** The idle phases: in CPU groups (when used) first, then without. */
  idles: readonly PhaseResult[],
  /** The flood phase of the design the idle baseline ran on (the chart's default): the headline ratio. */
  headline: PhaseResult,
  /** Every flood phase of the run, the headline's included, in the order they ran. */
  floods: readonly PhaseResult[],
  info: RunInfo,
  /** Each phase's step breakdown of the quiet tenant's emails (steps.ts). */
  breakdowns: ReadonlyMap<PhaseResult, StepBreakdown> = new Map(),
) {
  const p99 = (r: PhaseResult) => percentile(r.latencies, 99);
  // Each flood over the idle phase run the same way (in CPU groups or not).
  const idleOf = (r: PhaseResult) => idles.find((i) => i.spec.cpuGroups === r.spec.cpuGroups) ?? idles[0];
  const over = (r: PhaseResult) => p99(r) / p99(idleOf(r) ?? r);
  const ratio = over(headline);
  const shares = info.shares;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
  const lines = [
    `Run ${info.date.toISOString().replace(/\.\d+Z$/, "Z")} with \`${info.command}\` on ${os.availableParallelism()} CPUs (\`nproc\`; ${os.cpus()[0]?.model.split(" ").slice(0, 2).join(" ") ?? "?"}), Node ${process.version}, linux ${os.release()}. Load average (1, 5, 15 min) ${load(info.loadBefore)} before and ${load(info.loadAfter)} after: this machine is shared with other work (the run was niced), so the absolute figures are noisy; the ratio to the same run's idle phase is what to read.`,
    "",
    `Two tenants, one ${info.database}, a real SMTP sink in its own process, every message DKIM-signed (RSA-2048) with its tenant's own domain. The worker (concurrency ${info.concurrency}; the reserved lane's ${info.reservedConcurrency} slots for mail within its account's fair share, ADR 0064) runs in the idle phase ${info.headline === "separate" ? "as two processes: the delivery and background lanes in one, the reserved lane in a second of its own (`MAILROOM_WORKER_LANES`, the chart's `worker.reservedLane.separate`)" : "as one process with all three lanes"}, the headline design. The quiet tenant sends one email at a time at its steady rate, each accepted through core's group commit as POST /v1/send does; the flood tenant offers its whole per-second quota (its AccountPolicy's \`emailsPerSecond\`) in batches of 100, one transaction each as POST /v1/send/batch commits them, starting a few seconds ahead so that its backlog is already queued, which the worker cannot drain as fast as it grows. Latency: the quiet email's accept (Postgres's commit timestamp) to the sink's end of DATA; until MAIL FROM: to the start of its SMTP transaction at the sink, the worker's part (wake-up, fetch, claim, composition, signature) without the exchange with the sink, which the flood's 20 sessions share. Open loop: accepts start on schedule whatever the answers.`,
    "",
    "| phase | flood offered (emails) | quiet offered (emails) | quiet p50 ms | p90 | p99 | max | p50 / p99 until MAIL FROM (the worker's part) | flood backlog peak | flood backlog when quiet's last was delivered | delivered/s (phase start to last at the sink) | machine busy | check |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...idles.map(row),
    ...floods.map(row),
    "",
    `Quiet tenant's p99 under the flood / idle, ${headline.spec.label.replace(/^\([\w']+\) flood, /, "")}: **${ratio.toFixed(2)}×** (goal ≤ ${TARGET_P99_RATIO}×: ${mark(ratio <= TARGET_P99_RATIO)}).`,
  ];
  const others = floods.filter((r) => r !== headline);
  if (others.length > 0) {
    lines.push(
      "",
      `The other flood rows are the alternatives measured in the same run, in the order they ran, each on its worker processes started afresh (a row without CPU groups on those of the row before it): the reserved lane in its own process is ADR 0064's amendment (a second process with only that lane, beside the worker without it); in the worker's own process, ADR 0064 as first shipped (its deliveries share one event loop with 20 of the flood's); priority alone is ADR 0053's design, a worker without the reserved lane (the flood's jobs queue behind the quiet tenant's, but a quiet email still waits for a slot and behind the jobs already fetched ahead); first in first out is the \`deliver\` enqueue before ADR 0053 (every job at one priority), swapped into the bench's database for that phase only. The quiet tenant's p99 over its idle figure: ${others.map((r) => `${r.spec.label.replace(/^\([\w']+\) flood, /, "")} ${over(r).toFixed(2)}×`).join("; ")}.`,
    );
  }
  if (shares) {
    lines.push(
      "",
      `CPU groups (bench/fairness/cgroups.ts): what the kubelet does with the chart's default requests, made with this machine's cgroup v1 \`cpu\` controller: a parent with the machine's ${os.availableParallelism()} CPUs' shares (kubepods) and one group per component with \`cpu.shares\` = request in millicores × 1024 / 1000: ${Object.entries(
        shares,
      )
        .map(([role, s]) => `${role} ${s.millicores}m → ${s.shares} (${s.source})`)
        .join("; ")}. Rows marked "no CPU groups" ran every process in the root group, as before.`,
    );
  }
  if (breakdowns.size > 0) {
    lines.push(
      "",
      "Where the quiet emails' time goes, per phase (bench/fairness/steps.ts: Postgres's commit timestamp, the job's `locked_at` kept by a bench-only trigger, the worker's `deliver` span events, the sink's clock). Steps do not add up at p50 / p99; the last column, each step's mean over the slowest 5 % of the phase's quiet emails (commit → end of DATA), does.",
    );
    for (const r of [...idles, ...floods]) {
      const b = breakdowns.get(r);
      if (b) lines.push("", ...stepLines(r.spec.label, b));
    }
  }
  return lines.join("\n");
}
