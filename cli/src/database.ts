import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import type { Config } from "@mailroom/core/config";
import { createPool, type Pool, startEmbeddedPostgres } from "@mailroom/core/db";
import pg from "pg";

export interface Database {
  url: string;
  /** True when this process started the embedded server (and stops it on close). */
  startedEmbedded: boolean;
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = "mailroom";

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The database every local command shares: `DATABASE_URL` when set; otherwise the embedded cluster under
 * `<dataDir>/postgres`. When `mailroom run` already serves that cluster, other commands connect to it rather
 * than starting a second server on the same files.
 */
export async function openDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  if (config.database.url) return { url: config.database.url, startedEmbedded: false, stop: async () => {} };
  const databaseDir = path.join(config.dataDir, "postgres");
  const port = config.database.embeddedPort;
  const url = `postgres://mailroom:mailroom@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
  if (existsSync(path.join(databaseDir, "postmaster.pid")) && (await canConnect(url))) {
    return { url, startedEmbedded: false, stop: async () => {} };
  }
  if (!(await portIsFree(port))) {
    throw new Error(
      `port ${port} for the embedded Postgres is taken (another \`mailroom run\`, or a Postgres of your own?). ` +
        "Stop it, or set MAILROOM_EMBEDDED_PG_PORT, or point DATABASE_URL at your Postgres.",
    );
  }
  const firstRun = !existsSync(path.join(databaseDir, "PG_VERSION"));
  log(
    firstRun
      ? `creating embedded Postgres in ${databaseDir} …`
      : `starting embedded Postgres (${databaseDir}) …`,
  );
  const server = await startEmbeddedPostgres({ databaseDir, port, persistent: true });
  if (firstRun) await server.createDatabase(EMBEDDED_DATABASE);
  return { url: server.urlFor(EMBEDDED_DATABASE), startedEmbedded: true, stop: () => server.stop() };
}

export function openPool(
  config: Config,
  url: string,
  applicationName: string,
  onError?: (e: Error) => void,
): Pool {
  return createPool({ url, max: config.database.poolSize, applicationName, ...(onError ? { onError } : {}) });
}
