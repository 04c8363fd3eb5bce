import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { JOB_LANES, PERIODIC_JOBS, RESERVED_DELIVERY_LANE } from "@mailroom/core/jobs";
import { describe, expect, it } from "vitest";
import { FUNCTIONS_DIR, sqlFiles } from "../../core/src/db/migrate.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PROGRAMS = ["core/src", "api/src", "worker/src", "smtp/src", "operator/src", "cli/src"];
const CREATE_FUNCTION = /create or replace function (\w+)([\s\S]*?)(?=create or replace function|$)/g;

/** The rows of the first markdown table after `heading` in docs/architecture.md, as cells. */
async function tableAfter(heading: string): Promise<string[][]> {
  const page = await readFile(path.join(ROOT, "docs/architecture.md"), "utf8");
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${heading}"`);
  const lines = page.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** `a/{b,c}.ts` → `a/b.ts a/c.ts`: the page abbreviates sibling files so. */
const expandBraces = (text: string) =>
  text.replace(/([\w./-]*)\{([\w,.-]+)\}([\w./-]*)/g, (_, pre: string, alts: string, post: string) =>
    alts
      .split(",")
      .map((alt) => `${pre}${alt}${post}`)
      .join(" "),
  );

/** Backquoted names of a cell (`x`, braces expanded). */
const named = (cell: string) =>
  [...expandBraces(cell).matchAll(/`([^`]+)`/g)].flatMap((m) => (m[1] as string).split(" "));

/** Every writer of every table: SQL functions by name, TypeScript files by path (tests aside). */
async function writers(): Promise<Map<string, Set<string>>> {
  const byTable = new Map<string, Set<string>>();
  const add = (table: string, writer: string) =>
    byTable.set(table, (byTable.get(table) ?? new Set()).add(writer));
  const WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+(?:public\.)?(\w+)/gi;
  for (const file of await sqlFiles(FUNCTIONS_DIR)) {
    for (const [, name, body] of (await readFile(file, "utf8")).matchAll(CREATE_FUNCTION)) {
      for (const [, table] of (body as string).matchAll(WRITE))
        add((table as string).toLowerCase(), name as string);
    }
  }
  for (const dir of PROGRAMS) {
    for (const entry of await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.includes(".test.")) continue;
      const file = path.join(entry.parentPath, entry.name);
      // Only statements: SQL in template literals.
      for (const [sql] of (await readFile(file, "utf8")).matchAll(/`[^`]*`/g)) {
        for (const [, table] of sql.matchAll(WRITE))
          add((table as string).toLowerCase(), path.relative(ROOT, file));
      }
    }
  }
  return byTable;
}

/** The tables of the schema (core/sql/schema.sql, generated from the migrations). */
async function schemaTables(): Promise<string[]> {
  const schema = await readFile(path.join(ROOT, "core/sql/schema.sql"), "utf8");
  return [...schema.matchAll(/CREATE (?:UNLOGGED )?TABLE public\.(\w+)/g)].map((m) => m[1] as string).sort();
}

// Issue 35 item 2: docs/architecture.md is the map; these fail when the code leaves it.
describe("docs/architecture.md names every table's writers", async () => {
  const rows = await tableAfter("## Who writes each table");
  const page = new Map<string, string>();
  for (const [tables, cell] of rows) for (const table of named(tables ?? "")) page.set(table, cell ?? "");

  it("lists every table of the schema", async () => {
    expect((await schemaTables()).filter((table) => !page.has(table))).toEqual([]);
  });

  it("names each writer (SQL function or TypeScript file) of each table in that table's row", async () => {
    const missing: string[] = [];
    for (const [table, found] of await writers()) {
      const cell = page.get(table);
      if (cell === undefined) continue; // not one of ours (graphile_worker's, a CTE name): the test above covers ours
      const names = named(cell);
      for (const writer of found) {
        const listed = writer.endsWith(".ts")
          ? names.includes(writer) ||
            (names.includes(path.basename(writer)) &&
              names.some((n) => n.startsWith(`${path.dirname(writer)}/`)))
          : names.some((n) => n === writer || n === `${writer}.sql` || n.startsWith(`${writer} `));
        if (!listed) missing.push(`${table}: ${writer}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("docs/architecture.md names every job with its lane and writer", async () => {
  const rows = await tableAfter("## Jobs");
  const page = new Map(
    rows.map(([task, lane, writer]) => [named(task ?? "")[0], { lane, writer: writer ?? "" }]),
  );

  // A lane cell starts with the task's lane; what follows names the lanes that also run some of its jobs.
  it("lists each declared task in the lane core/src/jobs puts it in", () => {
    expect(Object.fromEntries([...page].map(([task, row]) => [task, row.lane?.split(/[\s(,]/)[0]]))).toEqual(
      JOB_LANES,
    );
  });

  it("names the reserved delivery lane (ADR 0064) in its task's row", () => {
    expect(named(page.get(RESERVED_DELIVERY_LANE.task)?.lane ?? "")).toContain(RESERVED_DELIVERY_LANE.name);
  });

  it("names each task's writer: its mailroom_enqueue_ function, or the crontab for a periodic task", async () => {
    const enqueuers = new Set<string>();
    for (const file of await sqlFiles(FUNCTIONS_DIR)) {
      for (const [, name] of (await readFile(file, "utf8")).matchAll(CREATE_FUNCTION)) {
        if ((name as string).startsWith("mailroom_enqueue_")) enqueuers.add(name as string);
      }
    }
    // The reserved lane's own task is the same job added by the same function (ADR 0074).
    const writtenAs = (task: string) =>
      task === RESERVED_DELIVERY_LANE.ownTask ? RESERVED_DELIVERY_LANE.task : task;
    const expected = Object.fromEntries(
      Object.keys(JOB_LANES).map((task) => [
        task,
        task in PERIODIC_JOBS
          ? "crontab"
          : [...enqueuers].find((f) => f === `mailroom_enqueue_${writtenAs(task)}`),
      ]),
    );
    const listed = Object.fromEntries(
      [...page].map(([task, row]) => [
        task,
        /crontab/.test(row.writer)
          ? "crontab"
          : named(row.writer)
              .find((n) => n.startsWith("mailroom_enqueue_"))
              ?.replace(/\.sql$/, ""),
      ]),
    );
    expect(listed).toEqual(expected);
    // And no enqueue function the page does not name.
    expect([...enqueuers].filter((f) => !Object.values(listed).includes(f))).toEqual([]);
  });
});
