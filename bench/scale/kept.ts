/**
 * The seeded database of bench/scale, throwaway or kept (issue 33 item 2). Seeding 10M emails takes half an
 * hour: with `BENCH_SCALE_KEEP=<dir>` (outside the repo, e.g. /work/bench-cache/scale-10m) the bench runs a
 * persistent embedded Postgres in that directory and writes `<dir>/seeded.json` once a size is seeded and
 * vacuumed; the next run with the same directory migrates that database (new migrations apply to the seeded
 * history, which is how a before/after comparison is made on the same data) and seeds only what its sizes add.
 * A directory whose seed was interrupted (no seeded.json) starts over.
 *
 * A kept history is not shrunk: its run skips the retention purges (they delete the oldest week), and what
 * the accept runs add (a few thousand emails) stays. Its bench domain is made anew at each run (the DKIM key
 * is sealed with the run's own key-encryption key), so the previous run's domain is deleted first.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { startEmbeddedPostgres } from "@mailroom/core/db";
import pg from "pg";
import { freePort } from "../../test/support/ports.ts";
import { DOMAIN } from "../delivery/protocol.ts";
import { type BenchDatabase, openBenchDatabase } from "../shared/support.ts";

const DATABASE = "bench_scale";
const KEEP = process.env.BENCH_SCALE_KEEP;

export interface ScaleDatabase {
  db: BenchDatabase;
  /** Emails already seeded in it (0 for a new one). */
  seeded: number;
  /** Whether the history outlives the run (then the purges, which shrink it, are skipped). */
  kept: boolean;
  /** Records that the database now holds `size` seeded emails (a no-op for a throwaway one). */
  markSeeded(size: number): Promise<void>;
  /** Clears what a previous run left that this one makes again (its bench domain). */
  prepare(url: string): Promise<void>;
}

export async function openScaleDatabase(tmp: string, say: (line: string) => void): Promise<ScaleDatabase> {
  if (!KEEP) {
    const db = await openBenchDatabase(tmp);
    return { db, seeded: 0, kept: false, markSeeded: async () => {}, prepare: async () => {} };
  }
  const dir = path.resolve(KEEP);
  const marker = path.join(dir, "seeded.json");
  await mkdir(dir, { recursive: true });
  // Postgres runs as its own system user when the bench runs as root: it must reach its data directory.
  await chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({
    databaseDir: path.join(dir, "postgres"),
    port: await freePort(),
    persistent: true,
  });
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      return await client.query<{ n: number }>(sql);
    } finally {
      await client.end();
    }
  };
  try {
    let seeded = existsSync(marker)
      ? (JSON.parse(await readFile(marker, "utf8")) as { size: number }).size
      : 0;
    const exists =
      (await admin(`select 1 as n from pg_database where datname = '${DATABASE}'`)).rowCount === 1;
    if (exists && !seeded) {
      say(`› ${dir}: an interrupted seed, starting over`);
      await admin(`drop database ${DATABASE} with (force)`);
    }
    if (!exists || !seeded) {
      await server.createDatabase(DATABASE);
      seeded = 0;
    } else say(`› ${dir}: kept database with ${seeded.toLocaleString("en-US")} seeded emails`);
    const siblings: string[] = [];
    const db: BenchDatabase = {
      url: server.urlFor(DATABASE),
      describe: `embedded Postgres kept in ${dir}`,
      createSibling: async () => {
        const name = `bench_scale_sibling_${siblings.length}_${process.pid}`;
        await server.createDatabase(name);
        siblings.push(name);
        return server.urlFor(name);
      },
      close: async () => {
        for (const name of siblings)
          await admin(`drop database if exists ${name} with (force)`).catch(() => {});
        await server.stop();
      },
    };
    return {
      db,
      seeded,
      kept: true,
      markSeeded: (size) => writeFile(marker, `${JSON.stringify({ size, at: new Date().toISOString() })}\n`),
      prepare: async (url) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query("delete from domains where name = $1", [DOMAIN]).finally(() => client.end());
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
