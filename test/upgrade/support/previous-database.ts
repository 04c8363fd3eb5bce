import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startEmbeddedPostgres } from "@mailroom/core/db";
import { freePort } from "../../support/ports.ts";

const run = promisify(execFile);

export interface PreviousDatabase {
  url: string;
  /** A send key, created by the previous release's CLI on its own schema. */
  key: string;
  stop(): Promise<void>;
}

/**
 * A Postgres of the upgrade run's own, set up entirely by the previous release's `mailroom` (`bin`): its
 * `migrate` brings the schema to that release, its `keys create` makes the send key. Nothing of this checkout
 * touches the database before the test applies the new migrations under load.
 */
export async function startPreviousDatabase(
  bin: string,
  progress: (line: string) => void,
): Promise<PreviousDatabase> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-upgrade-pg-"));
  // Under root, Postgres runs as its own system user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const server = await startEmbeddedPostgres({
    databaseDir: path.join(dir, "data"),
    port: await freePort(),
    persistent: false,
  });
  await server.createDatabase("mailroom");
  const url = server.urlFor("mailroom");
  const previous = (args: string[]) =>
    run(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: url, MAILROOM_LOG_LEVEL: "warn" },
      cwd: path.dirname(path.dirname(path.dirname(bin))),
    });
  await previous(["migrate"]);
  progress("database migrated by the previous release's `mailroom migrate`");
  const { stdout } = await previous(["keys", "create", "--scopes", "send"]);
  return {
    url,
    key: stdout.trim(),
    async stop() {
      await server.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
