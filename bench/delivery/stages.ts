/**
 * The latency phase of bench/delivery/main.ts broken down by stage, from timestamps the bench can read without
 * touching the production path: the accept's scheduled start (this process), Postgres's commit timestamps of
 * the email's `queued`, `sending` (the claim) and `delivered` (the record) timeline rows
 * (`track_commit_timestamp`), graphile-worker's own job timestamps (`created_at`, and `locked_at`: when a
 * worker fetched it), and the sink's clock (MAIL FROM: the message was composed and signed; end of DATA: the
 * 250). graphile-worker deletes a job once it completes, so for this phase only the bench's database gets a
 * trigger that copies each deleted job's timestamps into an unlogged bench table: it runs after the email is recorded,
 * in graphile-worker's completion statement, and exists nowhere but in this throwaway database.
 */
import type { Pool } from "@mailroom/core/db";
import { int, ms } from "../shared/benchmarks-file.ts";
import { percentile } from "../shared/percentile.ts";
import type { Arrival } from "./protocol.ts";

export const STAGES = [
  "request → commit",
  "commit → job visible",
  "job visible → job fetched (locked_at)",
  "job fetched → claimed (claim committed)",
  "claimed → signed (MAIL FROM at the sink)",
  "signed → 250 (end of DATA)",
  "250 → recorded (record committed)",
] as const;

export interface StageBreakdown {
  emails: number;
  /** Emails whose job was written in the accept's own transaction (visible the moment it committed). */
  jobInAcceptTx: number;
  stages: { name: string; p50: number; p99: number; tailMean: number }[];
  total: { p50: number; p99: number };
  /** The stage with the largest share of the slowest 1 % (by request → recorded). */
  dominant: string;
}

/** Installs the job-timestamp trigger on the bench's database (see the module comment). */
export async function traceJobs(pool: Pool): Promise<void> {
  await pool.query(`
    create unlogged table if not exists bench_job_trace (
      email_id uuid, created_at timestamptz, locked_at timestamptz, attempts int);
    create or replace function bench_trace_job() returns trigger language plpgsql as $$
    begin
      if old.payload->>'emailId' is not null then
        insert into bench_job_trace values ((old.payload->>'emailId')::uuid, old.created_at, old.locked_at, old.attempts);
      end if;
      return old;
    end $$;
    create or replace trigger bench_trace_job before delete on graphile_worker._private_jobs
      for each row execute function bench_trace_job();`);
}

export async function untraceJobs(pool: Pool): Promise<void> {
  await pool.query("drop trigger if exists bench_trace_job on graphile_worker._private_jobs");
}

interface Row {
  message_id: string;
  committed: number;
  job_created: number | null;
  locked: number | null;
  claimed: number | null;
  recorded: number | null;
}

export async function stageBreakdown(
  pool: Pool,
  scheduled: ReadonlyMap<string, number>,
  arrivals: ReadonlyMap<string, Arrival>,
): Promise<StageBreakdown> {
  const epochMs = (column: string) => `extract(epoch from ${column}) * 1000`;
  const eventCommit = (type: string) =>
    `(select ${epochMs("pg_xact_commit_timestamp(x.xmin)")} from email_events x
      where x.email_id = e.id and x.type = '${type}' order by x.id limit 1)`;
  const { rows } = await pool.query<Row>(
    `select e.message_id_header as message_id,
            ${epochMs("pg_xact_commit_timestamp(q.xmin)")} as committed,
            ${epochMs("j.created_at")} as job_created, ${epochMs("j.locked_at")} as locked,
            ${eventCommit("sending")} as claimed, ${eventCommit("delivered")} as recorded
     from emails e join email_events q on q.email_id = e.id and q.type = 'queued'
     left join bench_job_trace j on j.email_id = e.id
     where e.message_id_header = any($1::text[])`,
    [[...scheduled.keys()]],
  );
  const samples: { stages: number[]; total: number }[] = [];
  let jobInAcceptTx = 0;
  for (const r of rows) {
    const start = scheduled.get(r.message_id);
    const arrival = arrivals.get(r.message_id);
    if (start === undefined || !arrival || r.locked === null || r.claimed === null || r.recorded === null)
      continue;
    const committed = Number(r.committed);
    const jobCreated = Number(r.job_created);
    // A job created (its transaction's start) before the accept committed was written by that transaction:
    // it became visible at that commit. One written later is visible no earlier than its own start.
    const visible = Math.max(jobCreated, committed);
    if (jobCreated <= committed) jobInAcceptTx += 1;
    const points = [
      start,
      committed,
      visible,
      Number(r.locked),
      Number(r.claimed),
      arrival[4],
      arrival[1],
      Number(r.recorded),
    ];
    samples.push({
      stages: points.slice(1).map((t, i) => t - (points[i] ?? Number.NaN)),
      total: Number(r.recorded) - start,
    });
  }
  const slowest = [...samples]
    .sort((a, b) => b.total - a.total)
    .slice(0, Math.max(1, Math.ceil(samples.length / 100)));
  const stages = STAGES.map((name, i) => {
    const values = samples.map((s) => s.stages[i] ?? Number.NaN).sort((a, b) => a - b);
    const tailMean = slowest.reduce((sum, s) => sum + (s.stages[i] ?? 0), 0) / slowest.length;
    return { name, p50: percentile(values, 50), p99: percentile(values, 99), tailMean };
  });
  const totals = samples.map((s) => s.total).sort((a, b) => a - b);
  const dominant = stages.reduce(
    (a, b) => (b.tailMean > a.tailMean ? b : a),
    stages[0] ?? { name: "n/a", tailMean: 0 },
  );
  return {
    emails: samples.length,
    jobInAcceptTx,
    stages,
    total: { p50: percentile(totals, 50), p99: percentile(totals, 99) },
    dominant: dominant.name,
  };
}

/** The breakdown as BENCHMARKS.md lines. */
export function stageLines(b: StageBreakdown): string[] {
  return [
    `Where the time goes, per email of the same phase (${int(b.emails)} emails; ${int(b.jobInAcceptTx)} had their ` +
      "job written in the accept's own transaction). Stages are not additive at p50/p99; the last column is " +
      "each stage's mean over the slowest 1 % by request → recorded, which does add up:",
    "",
    "| stage | p50 ms | p99 ms | slowest 1 %: mean ms |",
    "|---|---:|---:|---:|",
    ...b.stages.map((s) => `| ${s.name} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.tailMean)} |`),
    `| **request → recorded** | ${ms(b.total.p50)} | ${ms(b.total.p99)} | |`,
    "",
    `The tail is dominated by **${b.dominant}**.`,
  ];
}
