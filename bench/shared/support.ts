/** Plumbing every benchmark shares: forked children with typed IPC, the throwaway database, machine CPU. */
import { type ChildProcess, execFile, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startEmbeddedPostgres } from "@mailroom/core/db";
import pg from "pg";
import { freePort } from "../../test/support/ports.ts";

export interface Child<In, Out extends { type: string }> {
  readonly pid: number | undefined;
  send(message: In): void;
  /** The next message of a type (including one already received and not yet taken). */
  next<T extends Out["type"]>(type: T, timeoutMs: number): Promise<Extract<Out, { type: T }>>;
  onMessage(listener: (message: Out) => void): void;
  /** Waits for the child to exit by itself, then kills it. */
  stop(graceMs: number): Promise<void>;
}

/** Forks a bench/ script (its URL, from the caller's `import.meta.url`). `quiet` sends its stdout (the API's log lines) to /dev/null; stderr stays visible. */
export function forkChild<In, Out extends { type: string }>(
  file: URL,
  quiet: boolean,
  execArgv: string[] = [],
  env: Record<string, string> = {},
): Child<In, Out> {
  const script = fileURLToPath(file);
  // Named as `<subject>/<file>` in errors: every subject has its own `main.ts`, `worker.ts` …
  const name = path.join(path.basename(path.dirname(script)), path.basename(script));
  const proc: ChildProcess = fork(script, [], {
    execArgv: [...process.execArgv, ...execArgv],
    env: { ...process.env, ...env },
    stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit", "ipc"],
    // Structured clone: the load report carries hundreds of thousands of ids.
    serialization: "advanced",
  });
  const buffered: Out[] = [];
  const listeners: ((message: Out) => void)[] = [];
  const waiters: { type: string; resolve: (m: Out) => void; reject: (e: Error) => void }[] = [];
  let exited: Error | undefined;
  const exitedPromise = new Promise<void>((resolve) => {
    proc.once("exit", (code, signal) => {
      exited = new Error(`${name} exited (${signal ?? `code ${code}`})`);
      for (const waiter of waiters.splice(0)) waiter.reject(exited);
      resolve();
    });
  });
  proc.on("message", (message: Out) => {
    for (const listener of listeners) listener(message);
    const index = waiters.findIndex((w) => w.type === message.type);
    if (index >= 0) waiters.splice(index, 1)[0]?.resolve(message);
    else if (message.type !== "tick") buffered.push(message);
  });
  return {
    pid: proc.pid,
    send: (message) => {
      if (!exited && proc.connected) proc.send(message as object);
    },
    next: (type, timeoutMs) =>
      new Promise((resolve, reject) => {
        const index = buffered.findIndex((m) => m.type === type);
        if (index >= 0) return resolve(buffered.splice(index, 1)[0] as Extract<Out, { type: typeof type }>);
        if (exited) return reject(exited);
        const timer = setTimeout(() => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(new Error(`${name}: no "${type}" within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = {
          type,
          resolve: (m: Out) => {
            clearTimeout(timer);
            resolve(m as Extract<Out, { type: typeof type }>);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        waiters.push(waiter);
      }),
    onMessage: (listener) => {
      listeners.push(listener);
    },
    stop: async (graceMs) => {
      if (exited) return;
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
}

const WARM_COMPILE_CACHE = fileURLToPath(
  new URL("../../scripts/image/warm-compile-cache.mjs", import.meta.url),
);
const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Warms a Node compile cache in `dir` as the image does at build time (scripts/image/warm-compile-cache.mjs):
 * every workspace module and `entries`, compiled with the exact flags a child forked with `execArgv` will
 * have (the cache is keyed by them). Returns the environment that makes such a child use it.
 */
export async function warmCompileCache(
  dir: string,
  execArgv: string[],
  entries: string[],
): Promise<Record<string, string>> {
  const targets = ["core/src", "api/src", "cli", "worker/src", "smtp/src", "operator/src"];
  const env = { NODE_COMPILE_CACHE: dir };
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [...process.execArgv, ...execArgv, WARM_COMPILE_CACHE, ...targets, ...entries],
      { cwd: REPO, env: { ...process.env, ...env } },
      (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
    );
  });
  return env;
}

export interface BenchDatabase {
  url: string;
  describe: string;
  /** CPU milliseconds the Postgres server has used so far, when it is ours to look at (embedded, Linux). */
  cpuMs?: () => number | undefined;
  /** Another fresh, empty database on the same server, dropped with this one: its URL. */
  createSibling(): Promise<string>;
  close(): Promise<void>;
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time of a postmaster and its backends from /proc: the postmaster's own and reaped children's, plus
 * every live child's. Other sessions may run Postgres servers on this machine, so only this tree counts.
 */
function postgresCpuMs(dataDir: string): number | undefined {
  try {
    const postmaster = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    let ticks = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue; // exited meanwhile
      }
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      if (pid === postmaster) ticks += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      else if (ppid === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return undefined;
  }
}

/**
 * A fresh database: on the server of `DATABASE_URL` when set (dropped afterwards, with its siblings), else on
 * a throwaway embedded Postgres under `dir` (fsync on, as Mailroom runs it). `settings` are given to the
 * embedded server only; a `DATABASE_URL` server keeps its own.
 */
export async function openBenchDatabase(
  dir: string,
  settings: Readonly<Record<string, string>> = {},
): Promise<BenchDatabase> {
  const newName = () => `bench_send_${randomBytes(4).toString("hex")}`;
  const name = newName();
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const names: string[] = [];
    const urlOf = (database: string) => {
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      return url.toString();
    };
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    const create = async (database: string) => {
      await admin(`create database ${database}`);
      names.push(database);
      return urlOf(database);
    };
    return {
      url: await create(name),
      describe: `database ${name} on the DATABASE_URL server`,
      createSibling: () => create(newName()),
      close: async () => {
        for (const database of names) await admin(`drop database if exists ${database} with (force)`);
      },
    };
  }
  const dataDir = path.join(dir, "postgres");
  const server = await startEmbeddedPostgres({
    databaseDir: dataDir,
    port: await freePort(),
    persistent: false,
    settings,
  });
  try {
    await server.createDatabase(name);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    url: server.urlFor(name),
    describe: "throwaway embedded Postgres (fsync on)",
    ...(process.platform === "linux" ? { cpuMs: () => postgresCpuMs(dataDir) } : {}),
    createSibling: async () => {
      const sibling = newName();
      await server.createDatabase(sibling);
      return server.urlFor(sibling);
    },
    close: () => server.stop(),
  };
}

type CpuTimes = os.CpuInfo["times"][];

export const cpuTimes = (): CpuTimes => os.cpus().map((cpu) => cpu.times);

/** Share of the whole machine's CPU that was busy between two snapshots, 0–1 (every process, ours or not). */
export function machineBusy(before: CpuTimes, after: CpuTimes): number {
  let busy = 0;
  let total = 0;
  after.forEach((t, i) => {
    const b = before[i];
    if (!b) return;
    const idle = t.idle - b.idle;
    const all = t.user + t.nice + t.sys + t.irq + t.idle - (b.user + b.nice + b.sys + b.irq + b.idle);
    busy += all - idle;
    total += all;
  });
  return total > 0 ? busy / total : 0;
}
