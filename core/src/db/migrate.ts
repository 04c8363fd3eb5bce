import path from "node:path";
import { fileURLToPath } from "node:url";

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../migrations");

export interface MigrateOptions {
  url: string;
  log?: (line: string) => void;
}

/**
 * Brings a database to the current schema: graphile-worker's own schema first (our migrations may reference
 * it), then Mailroom's forward-only SQL files from core/migrations. Safe to run concurrently: both tools
 * take an advisory lock.
 */
export async function migrate(options: MigrateOptions): Promise<{ applied: string[] }> {
  const log = options.log ?? (() => {});
  // Loaded on use: the api imports this module's package but never migrates, and both tools are large.
  const [{ runMigrations: runGraphileWorkerMigrations }, { runner }] = await Promise.all([
    import("graphile-worker"),
    import("node-pg-migrate"),
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
  return { applied: applied.map((m) => m.name) };
}
