/**
 * The throughput scenarios of bench/delivery/main.ts: (a) the baseline, nodemailer's pooled DKIM sender
 * (baseline.ts) straight to the sink, and (b) Mailroom, emails accepted in batches and delivered by
 * the real worker (worker.ts). Each warms up, resets the sink, measures, then checks arrivals.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type Child, cpuTimes, forkChild, machineBusy } from "../shared/support.ts";
import {
  type BaselineCommand,
  type BaselineMessage,
  DOMAIN,
  now,
  type WorkerCommand,
  type WorkerJob,
  type WorkerMessage,
} from "./protocol.ts";
import { checkArrivals, type ThroughputResult, throughputLine } from "./report.ts";
import {
  acceptBatches,
  checkRows,
  type DbCpu,
  type DeliveryRun,
  postgresCpuMeter,
  type Setup,
} from "./setup.ts";
import { type Sink, verifySamples, waitLimitMs } from "./sink-control.ts";

export type WorkerChild = Child<WorkerJob | WorkerCommand, WorkerMessage>;

/** An SMTP server between the baseline's sender and the sink that signs (bench/peer/main.ts: Postfix + OpenDKIM). */
export interface SigningPeer {
  label: string;
  url: string;
  /** CPU the peer's processes used so far, ms. */
  cpuMs(): number;
}

// ── (a) baseline ───────────────────────────────────────────────────────────────────────────────────────────
/**
 * nodemailer's pool sending the bench email: straight to the sink, signing itself, or through `peer`, which
 * signs and relays, unsigned.
 */
export async function runBaseline(
  run: DeliveryRun,
  setup: Setup,
  sink: Sink,
  concurrency: number,
  db: DbCpu,
  peer?: SigningPeer,
): Promise<ThroughputResult> {
  const { say } = run;
  const { emails, warmup } = run.settings;
  const label = peer?.label ?? "(a) baseline: nodemailer pool + DKIM";
  const child: Child<BaselineCommand, BaselineMessage> = forkChild(
    new URL("./baseline.ts", import.meta.url),
    false,
    run.settings.profileArgs,
  );
  run.onCleanup(() => child.stop(0));
  const idPrefix = `base-${process.pid}`;
  child.send({
    smtpUrl: peer?.url ?? sink.url,
    heloName: setup.hostname,
    concurrency,
    warmup,
    count: emails,
    idPrefix,
    ...(peer
      ? {}
      : { dkim: { domainName: DOMAIN, keySelector: setup.selector, privateKeyPem: setup.privateKeyPem } }),
  });
  say(`› ${label}: warm-up ${warmup} emails (pid ${child.pid})`);
  await child.next("warm", waitLimitMs(warmup));
  await sink.waitFor(warmup, "warm-up", now());
  await sink.reset();
  say(`› ${label}: measuring ${emails} emails, ${concurrency} in flight`);
  const machineBefore = cpuTimes();
  const postgres = postgresCpuMeter(db);
  const peerCpuBefore = peer?.cpuMs();
  const progressFrom = now();
  child.send({ type: "go" });
  const done = child.next("done", waitLimitMs(emails));
  await sink.waitFor(emails, peer ? "peer" : "baseline", progressFrom);
  const { result } = await done;
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresCpuMs = postgres.elapsed();
  const peerCpuMs = peer && peerCpuBefore !== undefined ? peer.cpuMs() - peerCpuBefore : undefined;
  await child.stop(10_000);
  await sleep(200); // a straggling duplicate would show up here
  const report = await sink.report();
  const expected = new Set(Array.from({ length: emails }, (_, i) => `<${idPrefix}-run-${i}@${DOMAIN}>`));
  const { check, byId } = checkArrivals(expected, report, await verifySamples(report.samples, setup.domain));
  const lastArrival = Math.max(...[...byId.values()].map((a) => a[1]));
  const seconds = (lastArrival - result.startedAt) / 1000;
  const out: ThroughputResult = {
    label,
    emails,
    seconds,
    senderCpuMs: result.cpuMs,
    sinkCpuMs: report.cpuMs,
    postgresCpuMs,
    ...(peerCpuMs === undefined ? {} : { peerCpuMs }),
    machineBusy: busy,
    check,
    errors: result.errors,
  };
  say(throughputLine(out));
  return out;
}

// ── (b) Mailroom throughput ────────────────────────────────────────────────────────────────────────────────
export async function startMailroomWorker(
  run: DeliveryRun,
  setup: Setup,
  sink: Sink,
  databaseUrl: string,
  /** MAILROOM_* variables for this worker only (bench/fairness's phase without the reserved lane). */
  env: Record<string, string> = {},
) {
  const child: WorkerChild = forkChild(
    new URL("./worker.ts", import.meta.url),
    !run.settings.serverLogs,
    run.settings.profileArgs,
    env,
  );
  run.onCleanup(async () => {
    child.send({ type: "stop" });
    await child.stop(15_000);
  });
  child.send({ databaseUrl, smtpUrl: sink.url, kek: setup.kek.toString("base64") });
  const ready = await child.next("ready", 60_000);
  run.say(
    `› Mailroom worker up (pid ${child.pid}): lanes ${ready.lanes.join(", ")}, concurrency ${ready.concurrency}, ${ready.poolSize} Postgres connections, relay to ${sink.url}`,
  );
  return { child, ...ready };
}

export async function runMailroom(
  run: DeliveryRun,
  setup: Setup,
  sink: Sink,
  worker: WorkerChild,
  db: DbCpu,
): Promise<ThroughputResult> {
  const { say } = run;
  const { emails, warmup, batch } = run.settings;
  const label = "(b) Mailroom: accept → worker → sink";
  if (warmup > 0) {
    say(`› ${label}: warm-up ${warmup} emails`);
    const warm = await acceptBatches(setup, batch, 0, warmup);
    await sink.waitFor(warmup, "warm-up", now());
    await checkRows(setup, warm);
  }
  await sink.reset();
  await run.statements?.reset();
  say(`› ${label}: measuring ${emails} emails, accepted in transactions of ${batch}`);
  worker.send({ type: "phase-start" });
  const machineBefore = cpuTimes();
  const postgres = postgresCpuMeter(db);
  const startedAt = now();
  const ids = await acceptBatches(setup, batch, warmup, emails);
  const acceptSeconds = (now() - startedAt) / 1000;
  const acceptPerSecond = emails / acceptSeconds;
  say(`    accepted ${emails} in ${acceptSeconds.toFixed(2)} s (${Math.round(acceptPerSecond)}/s)`);
  await sink.waitFor(emails, "mailroom", startedAt);
  const busy = machineBusy(machineBefore, cpuTimes());
  const postgresCpuMs = postgres.elapsed();
  worker.send({ type: "phase-end" });
  const phase = await worker.next("phase", 10_000);
  say(
    `    worker CPU per message: ${(phase.cpuMs / emails).toFixed(3)} ms, of which the main thread ` +
      `${(phase.mainThreadCpuMs / emails).toFixed(3)} ms (the rest: libuv's pool signing, V8's helpers)`,
  );
  for (const line of (await run.statements?.report(emails)) ?? []) say(line);
  const rows = await checkRows(setup, ids);
  const report = await sink.report();
  const { check, byId } = checkArrivals(
    new Set(ids),
    report,
    await verifySamples(report.samples, setup.domain),
  );
  const lastArrival = Math.max(...[...byId.values()].map((a) => a[1]));
  const out: ThroughputResult = {
    label,
    emails,
    seconds: (lastArrival - startedAt) / 1000,
    senderCpuMs: phase.cpuMs,
    senderRssPeakMb: phase.rssPeakMb,
    sinkCpuMs: report.cpuMs,
    postgresCpuMs,
    machineBusy: busy,
    check,
    rows,
    acceptPerSecond,
    errors: [],
  };
  say(throughputLine(out));
  return out;
}
