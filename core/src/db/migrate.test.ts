import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTIONS_DIR, MIGRATIONS_DIR, sqlFiles } from "./migrate.ts";

// Migrations up to 0014 predate core/sql/functions and keep their first function bodies as history; the files
// of core/sql/functions supersede them on every migrate (ADR 0003).
const LAST_MIGRATION_WITH_FUNCTIONS = 14;
const CREATE_FUNCTION = /\bcreate\s+(or\s+replace\s+)?function\s+([\w.]+)/gi;
// Functions whose results an index or a table stores: changing one means a new function and new rows or a new
// index, in a migration, so their bodies stay with the migration that made them (ADR 0061).
const INDEXED_FUNCTIONS = new Set(["0143_emails_search_index.sql: mailroom_email_search_text"]);

describe("where SQL functions live", () => {
  it("no migration after 0014 creates or replaces a function: its body belongs in core/sql/functions", async () => {
    const offenders: string[] = [];
    for (const name of await readdir(MIGRATIONS_DIR)) {
      if (Number(name.slice(0, 4)) <= LAST_MIGRATION_WITH_FUNCTIONS) continue;
      const sql = await readFile(path.join(MIGRATIONS_DIR, name), "utf8");
      for (const match of sql.matchAll(CREATE_FUNCTION)) offenders.push(`${name}: ${match[2]}`);
    }
    expect(offenders.filter((offender) => !INDEXED_FUNCTIONS.has(offender))).toEqual([]);
  });

  it("each function's live body is in one file: named after the function, or after its state machine", async () => {
    const files = await sqlFiles(FUNCTIONS_DIR);
    expect(files.length).toBeGreaterThan(0);
    const definedIn = new Map<string, string[]>();
    for (const file of files) {
      const sql = await readFile(file, "utf8");
      const defined = [...sql.matchAll(CREATE_FUNCTION)].map((m) => m[2] as string);
      // A file of one function is named after it; a state machine's file holds several (ADR 0003).
      if (defined.length < 2) {
        expect({ file: path.basename(file), defined }).toEqual({
          file: path.basename(file),
          defined: [path.basename(file, ".sql")],
        });
      }
      expect(sql).toMatch(/\bcreate\s+or\s+replace\s+function\b/i);
      for (const name of defined) definedIn.set(name, [...(definedIn.get(name) ?? []), path.basename(file)]);
    }
    const twice = [...definedIn].filter(([, where]) => where.length > 1);
    expect(twice).toEqual([]);
  });
});
