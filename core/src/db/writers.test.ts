import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FUNCTIONS_DIR, sqlFiles } from "./migrate.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const PROGRAMS = ["core/src", "api/src", "worker/src", "smtp/src", "operator/src", "cli/src"];
const CREATE_FUNCTION = /create or replace function (\w+)([\s\S]*?)(?=create or replace function|$)/g;

/** Every statement that adds or changes rows of `table`, by writer: a SQL function's name or a TS file's path. */
async function writersOf(table: string): Promise<string[]> {
  const write = new RegExp(`\\b(insert\\s+into|update)\\s+(public\\.)?${table}\\b`, "i");
  const writers = new Set<string>();
  for (const file of await sqlFiles(FUNCTIONS_DIR)) {
    for (const [, name, body] of (await readFile(file, "utf8")).matchAll(CREATE_FUNCTION)) {
      if (write.test(body as string)) writers.add(`${path.basename(file)}: ${name}`);
    }
  }
  for (const dir of PROGRAMS) {
    const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.includes(".test.")) continue;
      const file = path.join(entry.parentPath, entry.name);
      if (write.test(await readFile(file, "utf8"))) writers.add(path.relative(ROOT, file));
    }
  }
  return [...writers].sort();
}

// Issue 20: one writer per table that several places wrote. TypeScript decides; these SQL functions write.
describe("one writer per table", () => {
  it("emails: inserted by the accept statement, changed only by the lifecycle's functions", async () => {
    expect(await writersOf("emails")).toEqual([
      "core/src/emails/accept.ts",
      "email_lifecycle.sql: mailroom_cancel_email",
      "email_lifecycle.sql: mailroom_claim_emails",
      "email_lifecycle.sql: mailroom_fail_emails",
      "email_lifecycle.sql: mailroom_record_attempts",
      "email_lifecycle.sql: mailroom_reschedule_email",
      "email_lifecycle.sql: mailroom_set_recipient_results",
      "mailroom_release_held_emails.sql: mailroom_release_held_emails",
    ]);
  });

  it("email_events: only mailroom_append_email_events, the accept statement's first event included", async () => {
    expect(await writersOf("email_events")).toEqual(["email_lifecycle.sql: mailroom_append_email_events"]);
  });

  it("suppressions: only mailroom_add_suppressions, hard bounces at delivery included", async () => {
    expect(await writersOf("suppressions")).toEqual([
      "mailroom_add_suppressions.sql: mailroom_add_suppressions",
    ]);
  });
});
