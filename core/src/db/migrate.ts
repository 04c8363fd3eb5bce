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
/**
 * Migrations run while the previous release serves (ADR 0042). A migration waiting for a table lock holds up
 * every query on that table queued behind it, so it waits at most this long, then gives the lock up and tries
 * again; the same for a deadlock with the running programs' transactions.
 */
const LOCK_TIMEOUT = "3s";
const ATTEMPTS = 20;
const LOCK_CONFLICTS = new Set(["40P01", "55P03"]); // deadlock_detected, lock_not_available

export interface MigrateOptions {
  url: string;
  log?: (line: string) => void;
}

/**
 * Brings a database to the current schema: graphile-worker's own schema first (our migrations may reference
 * it), then Mailroom's forward-only SQL files from core/migrations (tables, indexes, types), each in its own
 * transaction, then every function of core/sql/functions and setting of core/sql/settings, idempotently
 * (`create or replace`), in one transaction. Safe to run concurrently: each step takes an advisory lock. See
 * ADR 0003. Safe under load: each transaction holds its locks briefly, and one that meets a deadlock or waits
 * too long for a lock is rolled back and tried again (ADR 0042).
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
  const client = new pg.Client({ connectionString: options.url });
  await client.connect();
  try {
    await client.query(`set lock_timeout = '${LOCK_TIMEOUT}'`);
    const applied = await retryingLockConflicts(log, () =>
      runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        direction: "up",
        migrationsTable: "mailroom_migrations",
        checkOrder: true,
        // One transaction per migration: one transaction over all of them would hold the first one's locks
        // while taking the next one's, in an order the running programs' transactions may take the other way.
        singleTransaction: false,
        log: () => {},
        logger: {
          debug: () => {},
          info: () => {},
          warn: (m: string) => log(m),
          error: (m: string) => log(m),
        },
      }),
    );
    await retryingLockConflicts(log, async () => {
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
      }
    });
    return { applied: applied.map((m) => m.name) };
  } finally {
    await client.end();
  }
}

/** Runs `step` again (after a short pause) while it fails on a deadlock or a lock timeout, up to ATTEMPTS. */
async function retryingLockConflicts<T>(log: (line: string) => void, step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || !LOCK_CONFLICTS.has(code) || attempt >= ATTEMPTS) throw error;
      log(`migrate: ${(error as Error).message} (attempt ${attempt} of ${ATTEMPTS}); trying again`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * attempt, 2000)));
    }
  }
}

/** The `.sql` files of a directory, by name. */
export async function sqlFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".sql")).sort();
  return names.map((name) => path.join(dir, name));
}
