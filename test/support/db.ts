import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { createPool, type Pool } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { MIGRATIONS_DIR } from "../../core/src/db/migrate.ts";

export interface TestDatabase {
  url: string;
  pool: Pool;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const templateUrl = new URL(inject("templateDatabaseUrl"));
  const template = templateUrl.pathname.slice(1);
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({
    connectionString: templateUrl.toString().replace(`/${template}`, "/postgres"),
  });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  const pool = createPool({ url: url.toString(), max: 10, applicationName: "mailroom-test" });
  return {
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      const closer = new pg.Client({
        connectionString: templateUrl.toString().replace(`/${template}`, "/postgres"),
      });
      await closer.connect();
      await closer.query(`drop database if exists ${name} with (force)`);
      await closer.end();
    },
  };
}

/**
 * For a core test file: one database for the file and a never-expiring `send` key of `account`, handed to
 * `use` before the first test; the database is dropped after the last one.
 */
export function useDatabaseWithKey(
  account: string,
  use: (setup: { db: TestDatabase; keyId: string }) => void,
): void {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    const { key } = await createKey(db.pool, { account, scopes: ["send"], expires: "never" });
    use({ db, keyId: key.keyId });
  });
  afterAll(async () => {
    await db?.drop();
  });
}

/**
 * Marks a domain verified without DNS (the domain tests verify through a real DNS server), to test a send path
 * alone. Its next background recheck is pushed an hour ahead: a new domain is due at once, and a worker's
 * minute cron would otherwise look its records up, find none and take the verification back mid-test.
 */
export async function markDomainVerified(pool: Pool, domainId: string): Promise<void> {
  await pool.query(
    `update domains set status = 'verified', verified_at = now(), next_check_at = now() + interval '1 hour'
     where id = $1`,
    [domainId],
  );
}

/**
 * A fresh, empty database migrated only up to migration `before` (not included: `"0070"`), as an older release
 * left it, for a test of a migration over old data. `use` gets a connected client and the database's URL
 * (to run `migrate` on); the database is dropped afterwards.
 */
export async function withDatabaseBefore<T>(
  before: string,
  use: (client: pg.Client, url: string) => Promise<T>,
): Promise<T> {
  const admin = new pg.Client({ connectionString: inject("templateDatabaseUrl") });
  const name = `t_${randomBytes(6).toString("hex")}`;
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(inject("templateDatabaseUrl"));
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    const [{ runMigrations }, { runner }] = await Promise.all([
      import("graphile-worker"),
      import("node-pg-migrate"),
    ]);
    await runMigrations({ connectionString: url.toString() });
    const earlier = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith(".sql") && f < before);
    await runner({
      databaseUrl: url.toString(),
      dir: MIGRATIONS_DIR,
      direction: "up",
      count: earlier.length,
      migrationsTable: "mailroom_migrations",
      log: () => {},
    });
    await client.connect();
    return await use(client, url.toString());
  } finally {
    await client.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
