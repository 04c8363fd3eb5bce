/** The report of bench/scale (main.ts): its BENCHMARKS.md section, from the figures of each size. */
import os from "node:os";
import { commandLine, int, mark, ms } from "../shared/benchmarks-file.ts";
import { percentile } from "../shared/percentile.ts";
import type { PurgeFigures } from "./purge.ts";

export const GOALS = { ratio: 0.9, logP99Ms: 50 };

/** Medians over the rounds: emails/s accepted and delivered. */
export interface Rates {
  accept: number;
  delivered: number;
}

export interface SizeResult {
  size: number;
  seeded: Rates;
  empty: Rates;
  log: { name: string; first: number[]; deep: number[] }[];
  purge: { rows: number; seconds: number };
  /** Absent for a kept history (BENCH_SCALE_KEEP), which the purges would shrink. */
  emailPurge?: { day: PurgeFigures; week: PurgeFigures };
  bytesPerEmail: Record<string, number>;
}

export interface ReportContext {
  emails: number;
  rounds: number;
  repeat: number;
  filters: string[];
  tables: string[];
}

const purgeFigures = (p: PurgeFigures) =>
  `${int(p.emails)} emails${p.partitions.length ? ` and ${p.partitions.length} partition(s)` : ""} in ${p.seconds.toFixed(2)} s (${int(p.emails / Math.max(p.seconds, 1e-3))} emails/s)`;

export function report(results: SizeResult[], c: ReportContext): string {
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16)}Z (${commandLine("bench/scale/main.ts", ["BENCH_SCALE_SIZES", "BENCH_SCALE_EMAILS", "BENCH_SCALE_REPEAT", "BENCH_SCALE_ROUNDS", "BENCH_SCALE_KEEP"])}), ` +
      `${os.availableParallelism()} CPUs, load after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}. ` +
      `${int(c.emails)} emails accepted and delivered per run; at each size ${c.rounds} runs on the seeded ` +
      `database alternate with ${c.rounds} on an empty one (same server, its own worker): medians, and their ratio. ` +
      `Log queries are core's listEmails, 20 per page, ${c.repeat} calls each.`,
    "",
    "| emails in history | accept/s | empty | ratio | delivered/s | empty | ratio | bytes per email (emails, events, attachments, idempotency, searched addresses) |",
    "|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of results) {
    const acceptRatio = r.seeded.accept / r.empty.accept;
    const deliveryRatio = r.seeded.delivered / r.empty.delivered;
    lines.push(
      `| ${int(r.size)} | ${int(r.seeded.accept)} | ${int(r.empty.accept)} | ${acceptRatio.toFixed(2)} ${mark(acceptRatio >= GOALS.ratio)} | ` +
        `${int(r.seeded.delivered)} | ${int(r.empty.delivered)} | ${deliveryRatio.toFixed(2)} ${mark(deliveryRatio >= GOALS.ratio)} | ` +
        `${c.tables.map((t) => int(r.bytesPerEmail[t] ?? 0)).join(" / ")} |`,
    );
  }
  lines.push("", "Email log, p50 / p99 ms (first page; page 90 % deep):", "");
  lines.push(`| filter | ${results.map((r) => int(r.size)).join(" | ")} |`);
  lines.push(`|---|${results.map(() => "---:").join("|")}|`);
  for (const [i, name] of c.filters.entries()) {
    const cells = results.map((r) => {
      const q = r.log[i];
      if (!q) return "";
      const p = (t: number[]) => (t.length ? `${ms(percentile(t, 50))} / ${ms(percentile(t, 99))}` : "–");
      const worst = Math.max(percentile(q.first, 99), q.deep.length ? percentile(q.deep, 99) : 0);
      return `${p(q.first)}; ${p(q.deep)} ${worst <= GOALS.logP99Ms ? "" : "✗"}`;
    });
    lines.push(`| ${name} | ${cells.join(" | ")} |`);
  }
  lines.push(
    "",
    `Idempotency retention purge: ${results.map((r) => `${int(r.purge.rows)} rows in ${r.purge.seconds.toFixed(2)} s at ${int(r.size)}`).join("; ")}. ` +
      `Email retention purge, the oldest of 30 days by rows (timeline and attachments by triggers); then the rest of the oldest week, its log and timeline partitions dropped whole (emails deleted by rows at the edges only): ${results.map((r) => (r.emailPurge ? `${purgeFigures(r.emailPurge.day)}; ${purgeFigures(r.emailPurge.week)}` : "skipped (kept history, BENCH_SCALE_KEEP)") + ` at ${int(r.size)}`).join("; ")}. ` +
      `Goals: accept and delivery ≥ ${GOALS.ratio * 100} % of the empty database's; every log query p99 ≤ ${GOALS.logP99Ms} ms (✗ marks a miss).`,
  );
  return lines.join("\n");
}
