/**
 * Where a quiet email's time goes (bench/fairness/main.ts): per email of the quiet tenant, from clocks the bench
 * can read on one machine (all wall-clock ms):
 * - its accept's commit (Postgres's commit timestamp of its `queued` event);
 * - its job's `locked_at` (when a lane's fetch took it: the reserved lane fetches for a slot it has free, the
 *   delivery lane into its local queue), copied by the delivery bench's trigger (`traceJobs` in
 *   bench/delivery/stages.ts) in this bench's throwaway database (graphile-worker deletes a completed job);
 * - the worker's `deliver` span (bench/shared/span-recorder.ts): the task's start and its steps' events
 *   (claimed, composed, signed);
 * - the sink's clock: MAIL FROM (the start of its SMTP transaction) and the end of DATA.
 * The trigger adds one insert into an unlogged table to every job's completion, in every phase alike.
 */
import { readFile } from "node:fs/promises";
import type { Pool } from "@mailroom/core/db";
import { ms } from "../shared/benchmarks-file.ts";
import { percentile } from "../shared/percentile.ts";
import type { DeliverSpan } from "../shared/span-recorder.ts";

export const STEPS = [
  "commit → job fetched (wake-up, a free slot, the fetch)",
  "fetched → task started (local queue, event loop)",
  "started → claimed",
  "claimed → composed",
  "composed → signed (DKIM)",
  "signed → MAIL FROM at the sink (session, envelope)",
  "MAIL FROM → end of DATA",
] as const;

/** One quiet email's clocks, as phase.ts has them. */
export interface QuietTimes {
  id: string;
  committed: number;
  mailFrom: number;
  endOfData: number;
}

export interface StepBreakdown {
  emails: number;
  /**
   * Emails delivered by a process running only the reserved lane (the topology `separate`; in one process the
   * lane that ran a job is not told apart: graphile-worker locks every job under its pool's id).
   */
  byReserved: number;
  steps: { name: string; p50: number; p99: number; tailMean: number }[];
  /** How many emails the tail's mean covers (the slowest 5 %, commit → end of DATA). */
  tail: number;
  tailByReserved: number;
  total: { p50: number; p99: number; tailMean: number };
}

async function readSpans(file: string): Promise<Map<string, DeliverSpan>> {
  const text = await readFile(file, "utf8").catch(() => "");
  const spans = new Map<string, DeliverSpan>();
  for (const line of text.split("\n")) {
    if (!line) continue;
    const span = JSON.parse(line) as DeliverSpan;
    // A re-run of the task (a crash between its end and its completion) is not expected here; keep the first.
    if (!spans.has(span.emailId)) spans.set(span.emailId, span);
  }
  return spans;
}

export async function stepBreakdown(
  pool: Pool,
  spansFile: string,
  quiet: readonly QuietTimes[],
): Promise<StepBreakdown> {
  const { rows } = await pool.query<{ email_id: string; locked_ms: number }>(
    `select email_id, extract(epoch from locked_at) * 1000 as locked_ms from bench_job_trace
     where email_id = any($1::uuid[])`,
    [quiet.map((q) => q.id)],
  );
  const jobs = new Map(rows.map((r) => [r.email_id, r]));
  const spans = await readSpans(spansFile);
  const samples: { steps: number[]; total: number; reserved: boolean }[] = [];
  for (const q of quiet) {
    const job = jobs.get(q.id);
    const span = spans.get(q.id);
    if (!job || !span || span.claimed === undefined || span.composed === undefined || !span.signed) continue;
    const points = [
      q.committed,
      Number(job.locked_ms),
      span.start,
      span.claimed,
      span.composed,
      span.signed,
      q.mailFrom,
      q.endOfData,
    ];
    samples.push({
      steps: points.slice(1).map((t, i) => t - (points[i] ?? Number.NaN)),
      total: q.endOfData - q.committed,
      reserved: span.lanes === "reserved",
    });
  }
  const tail = [...samples]
    .sort((a, b) => b.total - a.total)
    .slice(0, Math.max(1, Math.ceil(samples.length / 20)));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const totals = sorted(samples.map((s) => s.total));
  return {
    emails: samples.length,
    byReserved: samples.filter((s) => s.reserved).length,
    steps: STEPS.map((name, i) => {
      const values = sorted(samples.map((s) => s.steps[i] ?? Number.NaN));
      return {
        name,
        p50: percentile(values, 50),
        p99: percentile(values, 99),
        tailMean: mean(tail.map((s) => s.steps[i] ?? 0)),
      };
    }),
    tail: tail.length,
    tailByReserved: tail.filter((s) => s.reserved).length,
    total: {
      p50: percentile(totals, 50),
      p99: percentile(totals, 99),
      tailMean: mean(tail.map((s) => s.total)),
    },
  };
}

/** One phase's breakdown as a BENCHMARKS.md table (and the console's lines). */
export function stepLines(label: string, b: StepBreakdown): string[] {
  return [
    `${label}: ${b.emails} quiet emails traced` +
      (b.byReserved > 0
        ? `, ${b.byReserved} delivered by the reserved lane's own process (of the slowest ${b.tail}: ${b.tailByReserved}).`
        : "."),
    "",
    `| step | p50 ms | p99 ms | slowest ${b.tail} (5 %): mean ms |`,
    "|---|---:|---:|---:|",
    ...b.steps.map((s) => `| ${s.name} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.tailMean)} |`),
    `| **commit → end of DATA** | ${ms(b.total.p50)} | ${ms(b.total.p99)} | ${ms(b.total.tailMean)} |`,
  ];
}
