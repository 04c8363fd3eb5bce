import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { FUNCTIONS_DIR, MIGRATIONS_DIR } from "../db/migrate.ts";
import { acceptEmails } from "./accept.ts";
import { normalizeEmailFilter } from "./filter.ts";
import { cancelEmail, listEmails, rescheduleEmail } from "./log.ts";

// ADR 0061, "What the search costs every accepted email": the search's rows are written once, at accept. A
// status change (claim, record, cancel, reschedule) is never a HOT update of `emails` (status is indexed), so
// an index of `emails` over the searched text took the email's trigrams again at every one of them: Postgres's
// CPU per delivered email doubled. The text and its trigram index are in a table of their own.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("sw", (setup) => {
  ({ db, keyId } = setup);
});

/** The entries waiting in the pending lists of every trigram index of the database (GIN's fast update). */
async function pendingTrigrams(): Promise<number> {
  const { rows } = await db.pool.query<{ tuples: string }>(
    `select coalesce(sum(s.pending_tuples), 0) as tuples
     from pg_index x join pg_opclass o on o.oid = any (x.indclass::oid[])
     join pg_class i on i.oid = x.indexrelid and i.relkind = 'i' -- a partitioned index has no pages of its own
     cross join lateral pgstatginindex(x.indexrelid) s
     where o.opcname = 'gin_trgm_ops'`,
  );
  return Number(rows[0]?.tuples);
}

/** The row versions of one email's search rows: a rewritten row has a new ctid. */
async function searchRows(id: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ row: string }>(
    `select 'text ' || ctid::text as row from email_search_texts where email_id = $1
     union all select 'address ' || address || ' ' || ctid::text from email_addresses where email_id = $1
     order by 1`,
    [id],
  );
  return rows.map((r) => r.row);
}

describe("what the search writes (ADR 0061)", () => {
  it("keeps no index of emails over the searched text: the words' trigrams are in email_search_texts", async () => {
    const { rows } = await db.pool.query<{ index: string }>(
      `select x.indexrelid::regclass::text as index
       from pg_index x join pg_opclass o on o.oid = any (x.indclass::oid[])
       where o.opcname = 'gin_trgm_ops'
         and x.indrelid in (select relid from pg_partition_tree('emails'))
       order by 1`,
    );
    expect(rows).toEqual([]);
  });

  it("writes an email's search rows at accept and leaves them, and the trigram index, untouched by status changes", async () => {
    await db.pool.query("create extension if not exists pgstattuple");
    const [accepted] = await acceptEmails(db.pool, { hostname: "mail.test" }, [
      acceptItem("sw", keyId, {
        draft: { subject: "Quarterly statement ready", to: ["ann@example.test"], cc: ["cy@example.test"] },
      }),
    ]);
    const id = String(accepted?.messageId);
    const rows = await searchRows(id);
    expect(rows.map((r) => r.replace(/ \(\d+,\d+\)$/, ""))).toEqual([
      "address a@acme.test",
      "address ann@example.test",
      "address cy@example.test",
      "text",
    ]);
    const { rows: text } = await db.pool.query<{ search_text: string }>(
      "select search_text from email_search_texts where email_id = $1",
      [id],
    );
    // Every recipient, cc (and bcc) too, as the address search has them.
    expect(text[0]?.search_text).toBe(
      ` quarterly statement ready a@acme.test ann@example.test cy@example.test <${id}@mail.test>`,
    );

    // Two status changes through their one writer: queued → scheduled → canceled.
    const pending = await pendingTrigrams();
    await rescheduleEmail(db.pool, "sw", id, new Date(Date.now() + 3_600_000));
    await cancelEmail(db.pool, "sw", id);
    const { rows: status } = await db.pool.query<{ status: string }>(
      "select status from emails where id = $1",
      [id],
    );
    expect(status[0]?.status).toBe("canceled");
    expect(await searchRows(id)).toEqual(rows);
    expect(await pendingTrigrams()).toBe(pending);

    // And the search finds it as before.
    const found = await listEmails(db.pool, "sw", normalizeEmailFilter({ q: "statement ann@ quart" }));
    expect(found.data.map((e) => e.id)).toEqual([id]);
  });

  it("indexes the texts of emails inserted before its trigger existed, once, and the migration fills the log's", async () => {
    const accept = async (subject: string) => {
      await acceptEmails(db.pool, { hostname: "mail.test" }, [
        acceptItem("sw", keyId, { draft: { subject } }),
      ]);
    };
    const search = async (q: string) =>
      (await listEmails(db.pool, "sw", normalizeEmailFilter({ q }))).data.map((e) => e.subject);
    // As during an upgrade: the previous release accepts between migration 0183's fill and the functions.
    await db.pool.query("drop trigger emails_index_search_text on emails");
    await accept("Upgraded pelican");
    expect(await search("pelican")).toEqual([]);
    await db.pool.query(
      await readFile(path.join(FUNCTIONS_DIR, "mailroom_index_email_search_texts.sql"), "utf8"),
    );
    expect(await search("pelican")).toEqual(["Upgraded pelican"]);
    await accept("Later pelican");
    expect(await search("pelican")).toEqual(["Later pelican", "Upgraded pelican"]);
    // The migration's own fill, for the emails in the log before it (its index is there already).
    await db.pool.query("delete from email_search_texts where search_text like '% pelican%'");
    await db.pool.query(
      await readFile(path.join(MIGRATIONS_DIR, "0183_email_search_texts_backfill.sql"), "utf8"),
    );
    expect(await search("pelican")).toEqual(["Later pelican", "Upgraded pelican"]);
  });

  it("finds an email by a word of a Cc or Bcc recipient's address, as by one of a To recipient's", async () => {
    await acceptEmails(db.pool, { hostname: "mail.test" }, [
      acceptItem("sw", keyId, {
        draft: {
          subject: "Copies by word",
          to: ["first@words.test"],
          cc: ["Kestrel.Ops@Words.test"],
          bcc: ["osprey@audit.words.test"],
        },
      }),
    ]);
    const search = async (q: string) =>
      (await listEmails(db.pool, "sw", normalizeEmailFilter({ q }))).data.map((e) => e.subject);
    expect(await search("kestrel")).toEqual(["Copies by word"]);
    expect(await search("kestrel.ops")).toEqual(["Copies by word"]);
    expect(await search("osprey copies")).toEqual(["Copies by word"]);
    // A word's start, as for every word: "ops" is inside the Cc address, not at its start.
    expect(await search("ops")).toEqual([]);
  });
});
