import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createKey } from "@mailroom/core/keys";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import type pg from "pg";
import { httpsRequest } from "../../support/https.ts";
import { type SmtpSink, startSmtpSink } from "../../support/smtp-sink.ts";
import { TEST_KEK } from "../../support/stack.ts";
import { type FaultCluster, openProbe, startFaultCluster } from "./cluster.ts";
import { type Program, smtpDoorEnv, startProgram } from "./programs.ts";

/** Fast crash detection, as the fault runs need it (production: 5 s beats, dead after 30 s). */
const FAST_RECOVERY = { MAILROOM_WORKER_HEARTBEAT_SECONDS: "0.5", MAILROOM_WORKER_DEAD_AFTER_SECONDS: "3" };

/** What a scenario needs of its database: where it is, and how to stop it. */
interface ScenarioDatabase {
  url: string;
  stop(): Promise<void>;
  /** A send key the database's own setup created (the upgrade test's, with the previous release's CLI). */
  key?: string;
}

export interface Scenario<C extends ScenarioDatabase = FaultCluster> {
  dir: string;
  cluster: C;
  probe: pg.Pool;
  sink: SmtpSink;
  key: string;
  /** The local CA that signed the API's certificate. */
  ca: Buffer;
  env: Record<string, string>;
  programs: Program[];
  /** A program of this checkout, or of the `mailroom` executable `bin` (another release's). */
  worker(name: string, env?: Record<string, string>, bin?: string): Promise<Program>;
  api(name?: string, env?: Record<string, string>, bin?: string): Promise<Program>;
  /** `mailroom smtp` with its submission door on free loopback ports (the bounce receiver off). */
  smtp(name?: string, bin?: string): Promise<Program>;
  close(): Promise<void>;
}

/**
 * A fault run's world: its own Postgres (one embedded server unless `startDatabase` brings another, e.g. a
 * Patroni cluster), an SMTP sink, TLS material and a send key; programs on demand.
 */
export async function startScenario(name: string): Promise<Scenario>;
export async function startScenario<C extends ScenarioDatabase>(
  name: string,
  startDatabase: () => Promise<C>,
): Promise<Scenario<C>>;
export async function startScenario(
  name: string,
  startDatabase: () => Promise<ScenarioDatabase> = startFaultCluster,
): Promise<Scenario<ScenarioDatabase>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `mailroom-fault-${name}-`));
  const cluster = await startDatabase();
  const probe = openProbe(cluster.url);
  const sink = await startSmtpSink();
  const tls = await ensureLocalCertificates(path.join(dir, "tls"), ["localhost", "127.0.0.1"]);
  const kekFile = path.join(dir, "kek");
  await writeFile(kekFile, TEST_KEK.toString("base64"), { mode: 0o600 });
  const fullKey =
    cluster.key ??
    (await createKey(probe, { account: "default", scopes: ["send"], expires: "never" })).fullKey;
  const env: Record<string, string> = {
    DATABASE_URL: cluster.url,
    MAILROOM_KEY_ENCRYPTION_KEY_FILE: kekFile,
    MAILROOM_SMTP_URL: sink.url,
    MAILROOM_INTERNAL_HOST: "127.0.0.1",
    MAILROOM_WORKER_INTERNAL_PORT: "0",
    MAILROOM_API_INTERNAL_PORT: "0",
    MAILROOM_API_PORT: "0",
    MAILROOM_API_HOST: "127.0.0.1",
    MAILROOM_TLS_CERT_FILE: tls.certFile,
    MAILROOM_TLS_KEY_FILE: tls.keyFile,
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    MAILROOM_WORKER_CONCURRENCY: "8",
    MAILROOM_RETRY_BASE_SECONDS: "1",
    MAILROOM_LOG_LEVEL: "warn",
    MAILROOM_DATA_DIR: path.join(dir, "data"),
    ...FAST_RECOVERY,
  };
  const programs: Program[] = [];
  const launch = async (program: Program) => {
    programs.push(program);
    await program.start();
    return program;
  };
  const run = (
    programName: string,
    command: "api" | "worker" | "smtp",
    extra: Record<string, string>,
    bin?: string,
  ) =>
    launch(
      startProgram({
        name: programName,
        command,
        env: { ...env, ...extra },
        logFile: path.join(dir, `${programName}.log`),
        bin,
      }),
    );
  return {
    dir,
    cluster,
    probe,
    sink,
    key: fullKey,
    ca: await readFile(tls.caCertFile),
    env,
    programs,
    worker: (workerName, extra = {}, bin) => run(workerName, "worker", extra, bin),
    api: (apiName = "api", extra = {}, bin) => run(apiName, "api", extra, bin),
    smtp: async (smtpName = "smtp", bin) => run(smtpName, "smtp", await smtpDoorEnv(), bin),
    async close() {
      await Promise.all(programs.map((p) => p.stop()));
      await probe.end();
      await sink.close();
      await cluster.stop();
      if (process.env.MAILROOM_FAULT_KEEP_LOGS) process.stdout.write(`fault logs kept in ${dir}\n`);
      else await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A steady send load: a batch of `perBatch` emails every `everyMs`, a few requests in flight at most. Only
 * emails answered 2xx count as accepted; refused or failed requests (503, reset, timeout) are the client's
 * to retry and are not owed a delivery.
 */
export function startLoad(
  api: () => string,
  ca: Buffer,
  key: string,
  options: { perBatch?: number; everyMs?: number } = {},
) {
  const accepted = new Map<string, number>();
  let refused = 0;
  let inFlight = 0;
  let sequence = 0;
  const perBatch = options.perBatch ?? 5;
  const send = async () => {
    inFlight += 1;
    try {
      const batch = Array.from({ length: perBatch }, () => {
        sequence += 1;
        return {
          from: "load@acme.test",
          to: `r${sequence}@example.test`,
          subject: `load ${sequence}`,
          text: "t",
        };
      });
      const res = await Promise.race([
        httpsRequest(`${api()}/v1/send/batch`, {
          ca,
          headers: { authorization: `Bearer ${key}` },
          body: batch,
        }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 10_000)),
      ]);
      if (res.status !== 200) refused += perBatch;
      for (const item of (res.json.data as Array<{ status: string; messageId: string }> | undefined) ?? []) {
        if (item.status === "queued") accepted.set(item.messageId, Date.now());
        else refused += 1;
      }
    } catch {
      refused += perBatch;
    } finally {
      inFlight -= 1;
    }
  };
  const timer = setInterval(() => {
    if (inFlight < 4) void send();
  }, options.everyMs ?? 250);
  return {
    accepted,
    refused: () => refused,
    async stop() {
      clearInterval(timer);
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

/** Per accepted email, how many copies the sink received (by the email's stable Message-ID). */
export function deliveryCounts(sink: SmtpSink): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of sink.messages) {
    const id = /^<([^@>]+)@/.exec(m.parsed.messageId ?? "")?.[1];
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export interface FaultFigures {
  fault: string;
  accepted: number;
  delivered: number;
  duplicates: number;
  /** From the end of the fault until every email accepted so far was delivered. */
  recoverSeconds: number;
}

/**
 * Waits until every accepted email reached the sink at least once (or `boundMs` passed) and returns the
 * figures; `recoverSeconds` counts from `faultEndedAt` to the delivery that completed the set accepted by then.
 */
export async function awaitDeliveries(
  fault: string,
  sink: SmtpSink,
  accepted: Map<string, number>,
  faultEndedAt: number,
  boundMs: number,
): Promise<FaultFigures & { missing: string[] }> {
  const deadline = Date.now() + boundMs;
  let counts = deliveryCounts(sink);
  let missing = [...accepted.keys()].filter((id) => !counts.has(id));
  while (missing.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    counts = deliveryCounts(sink);
    missing = missing.filter((id) => !counts.has(id));
  }
  const acceptedBefore = new Set([...accepted].filter(([, at]) => at <= faultEndedAt).map(([id]) => id));
  const firstSeen = new Map<string, number>();
  for (const m of sink.messages) {
    const id = /^<([^@>]+)@/.exec(m.parsed.messageId ?? "")?.[1];
    if (id && !firstSeen.has(id)) firstSeen.set(id, m.receivedAt);
  }
  const completedAt = Math.max(
    faultEndedAt,
    ...[...acceptedBefore].map((id) => firstSeen.get(id) ?? Infinity),
  );
  let duplicates = 0;
  for (const id of accepted.keys()) duplicates += Math.max(0, (counts.get(id) ?? 0) - 1);
  const figures = {
    fault,
    accepted: accepted.size,
    delivered: [...accepted.keys()].filter((id) => counts.has(id)).length,
    duplicates,
    recoverSeconds: Math.round((completedAt - faultEndedAt) / 100) / 10,
    missing,
  };
  process.stdout.write(
    `[fault] ${fault}: accepted ${figures.accepted} / delivered ${figures.delivered} / duplicates ` +
      `${figures.duplicates} / time to recover ${figures.recoverSeconds} s\n`,
  );
  return figures;
}

/** Polls `check` until it holds (true) or `timeoutMs` passes (false). */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The duplicate window as the workers measured it (`mailroom_delivery_unrecorded_seconds`: the receiver's
 * answer to the record in Postgres), over every worker of the run: count, mean, and the bucket bound under
 * which 99 % of the handovers were recorded. Printed with the fault's figures.
 */
export async function reportUnrecordedWindow(fault: string, workers: readonly Program[]): Promise<void> {
  const name = "mailroom_delivery_unrecorded_seconds";
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const w of workers) {
    for (const line of await w.samples(name)) {
      const value = Number(line.split(" ").at(-1));
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (line.startsWith(`${name}_bucket`) && le)
        buckets.set(Number(le), (buckets.get(Number(le)) ?? 0) + value);
      else if (line.startsWith(`${name}_count`)) count += value;
      else if (line.startsWith(`${name}_sum`)) sum += value;
    }
  }
  const p99 = [...buckets].sort(([a], [b]) => a - b).find(([, n]) => n >= 0.99 * count)?.[0];
  process.stdout.write(
    `[fault] ${fault}: handover → recorded over ${count} handovers: mean ${((sum / Math.max(1, count)) * 1000).toFixed(1)} ms, ` +
      `p99 ≤ ${p99 === undefined ? "?" : `${p99 * 1000} ms`}\n`,
  );
}
