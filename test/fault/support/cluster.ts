import { readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrate, startEmbeddedPostgres } from "@mailroom/core/db";
import pg from "pg";
import { freePort } from "../../support/ports.ts";

/** A Postgres of the fault run's own, so that one fault can kill it without touching the other tests' server. */
export interface FaultCluster {
  /** URL of the migrated `mailroom` database. */
  url: string;
  /** SIGKILL to the postmaster: every backend dies with it, every client sees its connection reset. */
  kill(): void;
  /** Starts the server again on the same files and port (crash recovery replays the WAL). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFaultCluster(): Promise<FaultCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-fault-pg-"));
  // Under root, Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const databaseDir = path.join(dir, "data");
  const port = await freePort();
  const start = () => startEmbeddedPostgres({ databaseDir, port, persistent: true });
  let server = await start();
  await server.createDatabase("mailroom");
  const url = server.urlFor("mailroom");
  await migrate({ url });
  let running = true;
  return {
    url,
    kill() {
      const pid = Number(readFileSync(path.join(databaseDir, "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(pid, "SIGKILL");
      running = false;
    },
    async restart() {
      // The killed postmaster's backends notice its death and exit on their own; the new one waits for them.
      for (let attempt = 1; ; attempt++) {
        try {
          server = await start();
          break;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      running = true;
    },
    async stop() {
      if (running) await server.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A small pool for the test's own reads (counts, locks); it survives outages by reconnecting per query. */
export function openProbe(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 15_000 });
  pool.on("error", () => {});
  return pool;
}
