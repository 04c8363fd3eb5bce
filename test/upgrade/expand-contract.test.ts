import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureCommit, previousRelease } from "../../scripts/previous-release.ts";
import { findContractions, functionSignatures } from "./support/contractions.ts";

// Expand/contract across one release (ADR 0042): during an upgrade the previous release's programs run on the
// new schema, so a migration newer than that release may only expand it. Contractions wait a release, or are
// listed in contractions-allowed.json with the reviewer's reason.

const REPO = path.resolve(import.meta.dirname, "../..");
const MIGRATIONS_DIR = path.join(REPO, "core/migrations");
const FUNCTIONS_DIR = path.join(REPO, "core/sql/functions");
const release = previousRelease();

interface Allowed {
  migration: string;
  statement: string;
  why: string;
}
const allowlist = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "contractions-allowed.json"), "utf8"),
).allowed as Allowed[];

const atRelease = (dir: string): string[] => {
  ensureCommit(release.commit, () => {});
  const relative = path.relative(REPO, dir);
  return execFileSync("git", ["ls-tree", "--name-only", `${release.commit}:${relative}`], {
    cwd: REPO,
    encoding: "utf8",
  })
    .split("\n")
    .filter((name) => name.endsWith(".sql"));
};
const showAtRelease = (dir: string, name: string): string =>
  execFileSync("git", ["show", `${release.commit}:${path.relative(REPO, dir)}/${name}`], {
    cwd: REPO,
    encoding: "utf8",
  });
const sqlIn = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".sql"));

describe(`migrations newer than the previous release (${release.version}, ${release.commit.slice(0, 12)})`, () => {
  it("only expand the schema, but for reviewed exceptions", () => {
    const released = new Set(atRelease(MIGRATIONS_DIR));
    const refused: string[] = [];
    for (const migration of sqlIn(MIGRATIONS_DIR).filter((name) => !released.has(name))) {
      for (const c of findContractions(readFileSync(path.join(MIGRATIONS_DIR, migration), "utf8"))) {
        if (allowlist.some((a) => a.migration === migration && a.statement === c.statement)) continue;
        const entry = JSON.stringify({ migration, statement: c.statement, why: "…" });
        refused.push(`${migration}: ${c.rule}\n    ${c.statement}\n    reviewed exception: ${entry}`);
      }
    }
    expect(refused, "contracting statements (see docs/adr/0042)").toEqual([]);
  });

  it("keep every SQL function the previous release calls, with the same arguments", () => {
    const now = new Set(
      [
        ...sqlIn(FUNCTIONS_DIR).map((f) => path.join(FUNCTIONS_DIR, f)),
        ...sqlIn(MIGRATIONS_DIR).map((f) => path.join(MIGRATIONS_DIR, f)),
      ].flatMap((file) => functionSignatures(readFileSync(file, "utf8"))),
    );
    const before = atRelease(FUNCTIONS_DIR).flatMap((f) =>
      functionSignatures(showAtRelease(FUNCTIONS_DIR, f)),
    );
    expect(before.length).toBeGreaterThan(10);
    expect(before.filter((signature) => !now.has(signature))).toEqual([]);
  });

  it("lists only reviewed exceptions with a reason", () => {
    for (const a of allowlist) {
      expect(a.migration).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/);
      expect(a.statement.length, a.migration).toBeGreaterThan(0);
      expect(a.why.replace("…", "").trim().length, `${a.migration}: say why`).toBeGreaterThanOrEqual(20);
    }
  });
});

describe("findContractions", () => {
  const refused = (sql: string) => findContractions(sql).map((c) => c.statement);
  it.each([
    "drop table emails_old",
    "DROP TABLE IF EXISTS emails_old CASCADE",
    "drop view email_log",
    "drop function mailroom_claim_emails(uuid[], timestamptz[], uuid[])",
    "drop trigger template_versions_immutable on template_versions",
    "alter table emails drop column subject",
    "alter table emails drop subject",
    "alter table emails rename to emails_old",
    "alter table emails rename column subject to title",
    "alter table emails alter column subject type varchar(200)",
    "alter table emails alter column subject set data type varchar(200)",
    "alter table emails alter column status drop default",
    "alter table emails alter column subject set not null",
    "alter table emails add column tenant text not null",
    "alter table emails add tenant text not null",
    "alter type mailroom_webhook_claim drop attribute event_trace",
    "alter type email_status rename value 'queued' to 'waiting'",
    "truncate emails",
  ])("refuses %s", (sql) => {
    expect(refused(sql)).toHaveLength(1);
  });

  it.each([
    "create table emails_p (id uuid primary key) partition by range (id)",
    "alter table emails add column tenant text",
    "alter table emails add column tenant text not null default 'default'",
    "alter table emails add column n bigint generated always as identity not null",
    "alter table emails alter column subject drop not null",
    "alter table emails drop constraint emails_check",
    "alter table emails add constraint emails_check check (true)",
    "drop index emails_account_created",
    "alter type mailroom_webhook_claim add attribute event_trace jsonb",
    "alter type email_status add value 'held'",
    "create index concurrently emails_tenant on emails (tenant)",
    // A function body's statements are the function's, not the migration's.
    "create function f() returns void language plpgsql as $$ begin drop table x; end $$",
    "comment on table emails is 'drop table emails; rename to x'",
    "-- drop table emails\ncreate table y (id int)",
    "create table x (id int);\n-- Down Migration\ndrop table x;",
  ])("lets %s through", (sql) => {
    expect(refused(sql)).toEqual([]);
  });

  it("lets set not null through when the migration gives the column a default", () => {
    const sql =
      "alter table emails alter column kind set default 'x';\nalter table emails alter column kind set not null;";
    expect(refused(sql)).toEqual([]);
  });

  it("finds the contractions of migrations already released (the checker sees real files)", () => {
    const of = (name: string) => refused(readFileSync(path.join(MIGRATIONS_DIR, name), "utf8"));
    expect(of("0011_webhook_functions.sql")).toContain(
      "alter table webhook_events alter column fanned_out_at drop default",
    );
    expect(of("0014_webhook_attempts_by_endpoint.sql")).toContain(
      "alter table webhook_attempts alter column endpoint_id set not null",
    );
    expect(of("0051_domain_checks.sql")).toEqual([]);
  });

  it("reads a function's signature as its argument types", () => {
    expect(
      functionSignatures(
        "-- create function nope(int)\ncreate or replace function mailroom_x(p_a uuid[], p_b text default 'a,b', out p_c int)\nreturns void language sql as $$ select 1 $$;",
      ),
    ).toEqual(["mailroom_x(uuid[],text,int)"]);
  });
});
