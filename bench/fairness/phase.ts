/**
 * One phase of bench/fairness/main.ts: the quiet tenant sends at its steady rate (each email accepted through
 * core's group commit, as POST /v1/send does) while, in a flood phase, the other tenant offers its whole
 * per-second quota in batches of 100 (one transaction each, as POST /v1/send/batch commits them), starting a
 * few seconds earlier so that its backlog is already there. Open loop: every accept starts on schedule
 * whether or not earlier ones answered. Latency is the quiet email's accept (Postgres's commit timestamp) to
 * the sink's end of DATA, matched by Message-ID; the phase ends once everything accepted is delivered.
 */
import { withTransaction } from "@mailroom/core/db";
import { acceptEmails, createAcceptQueue } from "@mailroom/core/emails";
import { checkArrivals } from "../delivery/report.ts";
import type { Sink } from "../delivery/sink-control.ts";
import { verifySamples } from "../delivery/sink-control.ts";
import { cpuTimes, machineBusy } from "../shared/support.ts";
import type { QuietTimes } from "./steps.ts";
import { floodAcceptItem, quietAcceptItem, type Tenants, unsentOf, waitDelivered } from "./tenants.ts";

const now = (): number => performance.timeOrigin + performance.now();

export interface PhaseSpec {
  label: string;
  /** Emails per second the flood offers (0: no flood), in batches of `floodBatch`. */
  floodRate: number;
  floodBatch: number;
  /** Seconds the flood runs before the quiet tenant starts. */
  leadSeconds: number;
  quietRate: number;
  quietSeconds: number;
  /** Whether the bench's processes ran in the CPU groups of the pods they stand for (cgroups.ts). */
  cpuGroups: boolean;
}

export interface PhaseResult {
  spec: PhaseSpec;
  /** The quiet tenant's accept → delivered latencies, ascending, ms. */
  latencies: number[];
  /**
   * The quiet tenant's accept → MAIL FROM at the sink, ascending, ms: the worker's part (wake-up, fetch, claim,
   * composition, signature), before the SMTP exchange with the sink (which the flood's sessions share).
   */
  untilMailFrom: number[];
  /** Each quiet email's clocks, for the step breakdown (steps.ts). */
  quietTimes: QuietTimes[];
  quietEmails: number;
  floodEmails: number;
  /** The flood's emails not yet handed over when the quiet tenant's last email was delivered. */
  floodBacklog: number;
  /** Largest flood backlog seen while the quiet tenant was sending (sampled every second). */
  floodBacklogPeak: number;
  machineBusy: number;
  /** Emails delivered per second from the phase's start until its last one reached the sink. */
  deliveredPerSecond: number;
  check: { ok: boolean; text: string };
}

/** Starts `fire(i)` for i = 0… on a schedule of `rate` per second from `start`, for `seconds`. */
function schedule(start: number, rate: number, seconds: number, fire: (i: number) => Promise<void>) {
  const total = Math.round(rate * seconds);
  const inflight = new Set<Promise<void>>();
  return new Promise<void>((resolve, reject) => {
    let next = 0;
    const tick = () => {
      const t = now();
      while (next < total && start + (next * 1000) / rate <= t) {
        const p = fire(next++).catch(reject);
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      if (next >= total) void Promise.all(inflight).then(() => resolve(), reject);
      else setTimeout(tick, Math.max(0, start + (next * 1000) / rate - now()));
    };
    tick();
  });
}

/** Commit time of each email's accept (ms), from its first timeline event's transaction. */
async function commitTimes(tenants: Tenants, ids: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await tenants.setup.pool.query<{ id: string; committed_ms: number }>(
    `select e.id, extract(epoch from pg_xact_commit_timestamp(ev.xmin)) * 1000 as committed_ms
     from emails e join email_events ev on ev.email_id = e.id and ev.type = 'queued'
     where e.id = any($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.committed_ms)]));
}

export async function runPhase(
  tenants: Tenants,
  sink: Sink,
  spec: PhaseSpec,
  counter: { next: number },
  say: (line: string) => void,
): Promise<PhaseResult> {
  const { setup } = tenants;
  const floodSeconds = spec.floodRate > 0 ? spec.leadSeconds + spec.quietSeconds : 0;
  say(
    `› ${spec.label}: quiet ${spec.quietRate}/s for ${spec.quietSeconds} s` +
      (spec.floodRate > 0
        ? `, flood ${spec.floodRate}/s for ${floodSeconds} s (${spec.leadSeconds} s ahead)`
        : ""),
  );
  await sink.reset();
  const machineBefore = cpuTimes();
  const start = now() + 10;
  const quietIds: string[] = [];
  const floodIds: string[] = [];
  const queue = createAcceptQueue(setup.pool, { hostname: setup.hostname, concurrency: 1, maxBatch: 200 });
  const floodBatches = Math.round(spec.floodRate / spec.floodBatch);
  const flood =
    spec.floodRate > 0
      ? schedule(start, floodBatches, floodSeconds, async () => {
          const first = counter.next;
          counter.next += spec.floodBatch;
          const items = Array.from({ length: spec.floodBatch }, (_, k) =>
            floodAcceptItem(tenants, first + k),
          );
          const results = await withTransaction(setup.pool, (client) =>
            acceptEmails(client, { hostname: setup.hostname }, items),
          );
          for (const r of results) floodIds.push(r.messageId);
        })
      : Promise.resolve();
  let backlogPeak = 0;
  const sampler = setInterval(() => {
    unsentOf(setup, setup.account).then(
      (n) => {
        backlogPeak = Math.max(backlogPeak, n);
      },
      () => undefined,
    );
  }, 1_000);
  const quietStart = start + (spec.floodRate > 0 ? spec.leadSeconds * 1000 : 0);
  const quiet = schedule(quietStart, spec.quietRate, spec.quietSeconds, async () => {
    const result = await queue.accept(quietAcceptItem(tenants, counter.next++));
    if (result.status !== "queued") throw new Error(`quiet accept: ${result.status}`);
    quietIds.push(result.messageId);
  });
  await Promise.all([flood, quiet]);
  await waitDelivered(setup, quietIds, 300_000);
  clearInterval(sampler);
  const floodBacklog = await unsentOf(setup, setup.account);
  say(`    quiet tenant's ${quietIds.length} emails delivered; the flood still has ${floodBacklog} unsent`);
  await sink.waitFor(quietIds.length + floodIds.length, spec.label, start);
  const deliveredPerSecond = ((quietIds.length + floodIds.length) * 1000) / (now() - start);
  await waitDelivered(setup, floodIds, 300_000);
  const busy = machineBusy(machineBefore, cpuTimes());
  const report = await sink.report();
  const header = (id: string) => `<${id}@${setup.hostname}>`;
  const expected = new Set([...quietIds, ...floodIds].map(header));
  const { check, byId } = checkArrivals(
    expected,
    report,
    await verifySamples(report.samples, tenants.records),
  );
  const committed = await commitTimes(tenants, quietIds);
  const since = (field: 1 | 4) =>
    quietIds
      .map((id) => (byId.get(header(id))?.[field] ?? Number.NaN) - (committed.get(id) ?? Number.NaN))
      .sort((a, b) => a - b);
  const latencies = since(1);
  const quietTimes = quietIds.map((id) => {
    const arrival = byId.get(header(id));
    return {
      id,
      committed: committed.get(id) ?? Number.NaN,
      mailFrom: arrival?.[4] ?? Number.NaN,
      endOfData: arrival?.[1] ?? Number.NaN,
    };
  });
  const text =
    `${check.ok ? "✓" : "✗"} ${check.arrived.toLocaleString("en-US")}/${check.expected.toLocaleString("en-US")} once each` +
    (check.duplicates > 0 ? `, ${check.duplicates} duplicates` : "") +
    (check.unsigned > 0 ? `, ${check.unsigned} unsigned` : "") +
    `; DKIM mailauth ${check.dkim.pass}/${check.dkim.sampled} pass; rows ✓ all delivered`;
  return {
    spec,
    latencies,
    untilMailFrom: since(4),
    quietTimes,
    quietEmails: quietIds.length,
    floodEmails: floodIds.length,
    floodBacklog,
    floodBacklogPeak: backlogPeak,
    machineBusy: busy,
    deliveredPerSecond,
    check: { ok: check.ok && !latencies.some(Number.isNaN), text },
  };
}
