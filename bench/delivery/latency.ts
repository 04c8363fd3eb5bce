/**
 * Phase (c) of bench/delivery/main.ts: accept-to-handover latency at a fixed offered rate, open loop (accepts start
 * on schedule whether or not earlier ones answered), each email matched at the sink by its Message-ID. Each
 * accept goes through core's group commit with the settings POST /v1/send uses (`createEmailSender`: one
 * transaction in flight, up to 200 requests sharing it, each answered once its own transaction committed), so
 * request → commit is what the product's accept costs, not that of a transaction per email on a pool.
 */

import { createAcceptQueue } from "@mailroom/core/emails";
import { percentile } from "../shared/percentile.ts";
import { cpuTimes, machineBusy } from "../shared/support.ts";
import { now } from "./protocol.ts";
import { checkArrivals, type LatencyResult, latencyLine } from "./report.ts";
import {
  acceptItem,
  checkRows,
  type DbCpu,
  type DeliveryRun,
  postgresCpuMeter,
  type Setup,
} from "./setup.ts";
import { type Sink, verifySamples } from "./sink-control.ts";
import { stageBreakdown, stageLines, traceJobs, untraceJobs } from "./stages.ts";
import type { WorkerChild } from "./throughput.ts";

/**
 * When each accept committed, by Message-ID: Postgres's own commit timestamps where the server keeps them
 * (`track_commit_timestamp`, on for the embedded server), read from each email's first timeline event (a row
 * the accept wrote and nothing updates). Otherwise the time this process saw the commit's answer, which on a
 * busy machine can come after the worker already handed the message over (latencies then look shorter).
 */
async function commitTimestamps(
  setup: Setup,
  observed: Map<string, number>,
): Promise<{ times: Map<string, number>; clock: LatencyResult["clock"] }> {
  const { rows: setting } = await setup.pool.query<{ on: boolean }>(
    "select current_setting('track_commit_timestamp') = 'on' as on",
  );
  if (!setting[0]?.on) return { times: observed, clock: "observed" };
  const { rows } = await setup.pool.query<{ message_id: string; committed_ms: number }>(
    `select e.message_id_header as message_id,
            extract(epoch from pg_xact_commit_timestamp(ev.xmin)) * 1000 as committed_ms
     from emails e join email_events ev on ev.email_id = e.id and ev.type = 'queued'
     where e.message_id_header = any($1::text[])`,
    [[...observed.keys()]],
  );
  return { times: new Map(rows.map((r) => [r.message_id, Number(r.committed_ms)])), clock: "postgres" };
}

interface WalReading {
  commits: number;
  fsyncs: number;
  fsyncMs: number;
}

/**
 * Transactions committed and WAL flushes so far, server-wide, and with `track_wal_io_timing` (on for the
 * embedded server) the time spent flushing. Read around the phase, they say how busy the disk kept every
 * commit waiting: each writing commit returns only after a flush that covers it.
 */
async function walReading(setup: Setup): Promise<WalReading> {
  const { rows } = await setup.pool.query<{ commits: string; fsyncs: string; fsync_ms: number }>(
    `select (select sum(xact_commit) from pg_stat_database) as commits,
            coalesce(sum(fsyncs), 0) as fsyncs, coalesce(sum(fsync_time), 0) as fsync_ms
     from pg_stat_io where object = 'wal'`,
  );
  const row = rows[0];
  return { commits: Number(row?.commits), fsyncs: Number(row?.fsyncs), fsyncMs: Number(row?.fsync_ms) };
}

function walLine(before: WalReading, after: WalReading, seconds: number): string {
  const commits = after.commits - before.commits;
  const fsyncs = after.fsyncs - before.fsyncs;
  const fsyncMs = after.fsyncMs - before.fsyncMs;
  return (
    `    WAL during the phase: ${Math.round(fsyncs / seconds)} flushes/s, ${(fsyncMs / Math.max(fsyncs, 1)).toFixed(2)} ` +
    `ms each on average, Postgres flushing the WAL ${Math.round(fsyncMs / seconds / 10)} % of the time; ` +
    `${Math.round(commits / seconds)} transactions/s committed (read-only ones included, which need no flush)`
  );
}

export async function runLatency(
  run: DeliveryRun,
  setup: Setup,
  sink: Sink,
  worker: WorkerChild,
  db: DbCpu,
): Promise<LatencyResult> {
  const { say } = run;
  const { rate, latencySeconds } = run.settings;
  const total = rate * latencySeconds;
  const interval = 1000 / rate;
  const first = run.settings.warmup + run.settings.emails;
  await sink.reset();
  say(
    `› (c) latency: ${rate} emails/s offered for ${latencySeconds} s (${total} emails, accepted through the group commit)`,
  );
  const committed = new Map<string, number>();
  const scheduledAt = new Map<string, number>();
  const acceptMs: number[] = [];
  await traceJobs(setup.pool);
  run.onCleanup(() => untraceJobs(setup.pool).catch(() => undefined));
  const failures: string[] = [];
  const inflight = new Set<Promise<void>>();
  worker.send({ type: "phase-start" });
  const machineBefore = cpuTimes();
  const postgres = postgresCpuMeter(db);
  const walBefore = await walReading(setup);
  const start = now() + 10;
  // As core/src/sending/send-emails.ts sets up the API's queue.
  const queue = createAcceptQueue(setup.pool, { hostname: setup.hostname, concurrency: 1, maxBatch: 200 });
  const fire = (i: number) => {
    const scheduled = start + i * interval;
    const p = queue.accept(acceptItem(setup, first + i)).then(
      (result) => {
        const at = now();
        acceptMs.push(at - scheduled);
        committed.set(`<${result.messageId}@${setup.hostname}>`, at);
        scheduledAt.set(`<${result.messageId}@${setup.hostname}>`, scheduled);
      },
      (error: Error) => {
        if (failures.length < 5) failures.push(error.message);
      },
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  let next = 0;
  let lastPrint = now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = now();
      while (next < total && start + next * interval <= t) fire(next++);
      if (t - lastPrint >= 5_000) {
        say(
          `    latency ${((t - start) / 1000).toFixed(0)} s: ${next} accepts started, ${committed.size} committed`,
        );
        lastPrint = t;
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, start + next * interval - now()));
    };
    tick();
  });
  while (inflight.size > 0) await Promise.all(inflight);
  const lastCommit = now();
  if (failures.length > 0) throw new Error(`accepts failed: ${failures.join(" | ")}`);
  await sink.waitFor(total, "latency", start);
  const walSeconds = (now() - start) / 1000;
  const walAfter = await walReading(setup);
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresCpuMs = postgres.elapsed();
  worker.send({ type: "phase-end" });
  const phase = await worker.next("phase", 10_000);
  const rows = await checkRows(setup, [...committed.keys()]);
  await untraceJobs(setup.pool);
  const report = await sink.report();
  const { check, byId } = checkArrivals(
    new Set(committed.keys()),
    report,
    await verifySamples(report.samples, setup.domain),
  );
  const commits = await commitTimestamps(setup, committed);
  const latencies = [...byId.values()]
    .map(([id, at]) => at - (commits.times.get(id) ?? Number.NaN))
    .sort((a, b) => a - b);
  const accepts = [...acceptMs].sort((a, b) => a - b);
  const seconds = (Math.max(...[...byId.values()].map((a) => a[1])) - start) / 1000;
  const out: LatencyResult = {
    clock: commits.clock,
    rate,
    seconds: latencySeconds,
    emails: total,
    acceptRate: committed.size / ((lastCommit - start) / 1000),
    accept: {
      p50: percentile(accepts, 50),
      p99: percentile(accepts, 99),
      max: accepts[accepts.length - 1] ?? 0,
    },
    latency: {
      min: latencies[0] ?? Number.NaN,
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
    },
    periodSeconds: seconds,
    workerCpuMs: phase.cpuMs,
    postgresCpuMs,
    machineBusy: busy,
    check,
    rows,
    ...(commits.clock === "postgres" ? { stages: await stageBreakdown(setup.pool, scheduledAt, byId) } : {}),
  };
  say(latencyLine(out));
  say(walLine(walBefore, walAfter, walSeconds));
  if (out.stages) for (const line of stageLines(out.stages)) if (line.startsWith("|")) say(`    ${line}`);
  return out;
}
