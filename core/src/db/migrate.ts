import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CORE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const MIGRATIONS_DIR = path.join(CORE_DIR, "migrations");
/** One file per SQL function: the live body of each function, re-applied after every migrate. */
export const FUNCTIONS_DIR = path.join(CORE_DIR, "sql/functions");
/** Settings on objects that a library's migrations may re-create (graphile-worker's functions). */
export const SETTINGS_DIR = path.join(CORE_DIR, "sql/settings");

// Any fixed 64-bit number of ours: serialises concurrent pods re-applying the functions.
const FUNCTIONS_LOCK = 7_305_118_221;

export interface MigrateOptions {
  url: string;
  log?: (line: string) => void;
}

/**
 * Brings a database to the current schema: graphile-worker's own schema first (our migrations may reference
 * it), then Mailroom's forward-only SQL files from core/migrations (tables, indexes, types), then every
 * function of core/sql/functions and setting of core/sql/settings, idempotently (`create or replace`), in
 * one transaction. Safe to run concurrently: each step takes an advisory lock. See ADR 0003.
 */
export async function migrate(options: MigrateOptions): Promise<{ applied: string[] }> {
  const log = options.log ?? (() => {});
  // Loaded on use: the api imports this module's package but never migrates, and both tools are large.
  const [{ runMigrations: runGraphileWorkerMigrations }, { runner }, { default: pg }] = await Promise.all([
    import("graphile-worker"),
    import("node-pg-migrate"),
    import("pg"),
  ]);
  await runGraphileWorkerMigrations({ connectionString: options.url, logger: undefined });
  const applied = await runner({
    databaseUrl: options.url,
    dir: MIGRATIONS_DIR,
    direction: "up",
    migrationsTable: "mailroom_migrations",
    checkOrder: true,
    singleTransaction: true,
    log: () => {},
    logger: { debug: () => {}, info: () => {}, warn: (m: string) => log(m), error: (m: string) => log(m) },
  });
  const client = new pg.Client({ connectionString: options.url });
  await client.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [FUNCTIONS_LOCK]);
    for (const file of [...(await sqlFiles(FUNCTIONS_DIR)), ...(await sqlFiles(SETTINGS_DIR))]) {
      await client.query(await readFile(file, "utf8"));
    }
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return { applied: applied.map((m) => m.name) };
}

/** The `.sql` files of a directory, by name. */
export async function sqlFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".sql")).sort();
  return names.map((name) => path.join(dir, name));
}
