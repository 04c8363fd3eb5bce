import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { withDatabaseBefore } from "../../../test/support/db.ts";
import { newId } from "../db/ids.ts";
import { MIGRATIONS_DIR, migrate } from "../db/migrate.ts";

// ADR 0055: migrations 0150-0152 partition emails under the running previous release. The old table is
// attached whole (its range proven by a validated CHECK, not by a scan under the exclusive lock), it keeps
// every index, check, key and trigger it had (those other branches add included), and the old code's
// statements keep working.

/** A database before 0150 with one queued email of `id` (an attachment, two events) and another branch's
 *  index, check and trigger on emails; `then` runs after every migration. */
async function beforeAndAfter(id: string, then: (client: pg.Client, notices: string[]) => Promise<void>) {
  await withDatabaseBefore("0150", async (client, url) => {
    await client.query("insert into accounts (account) values ('old')");
    await client.query(
      `insert into api_keys (key_id, account, secret_sha256, scopes) values ('keyaaaa00001', 'old', $1, '{send}')`,
      [Buffer.alloc(32)],
    );
    await oldInsert(client, id);
    await client.query(
      `insert into email_attachments (email_id, position, filename, content_type, content)
       values ($1, 0, 'a.txt', 'text/plain', 'a')`,
      [id],
    );
    await client.query("insert into email_events (email_id, type) values ($1, 'queued'), ($1, 'sending')", [
      id,
    ]);
    // What a migration 0120-0149 of another branch might add to emails.
    await client.query("create index emails_subject_search on emails (account, lower(subject))");
    await client.query(
      "alter table emails add constraint emails_subject_short check (length(subject) < 999)",
    );
    await client.query(
      `create function test_touch() returns trigger language plpgsql as $$
       begin new.subject := new.subject || '!'; return new; end $$`,
    );
    await client.query(
      "create trigger emails_touch before insert on emails for each row execute function test_touch()",
    );
    // The three steps once by hand, rolled back, to hear whether attaching had to read the table.
    const notices: string[] = [];
    client.on("notice", (n) => notices.push(n.message ?? ""));
    await client.query("begin");
    for (const file of ["0150_emails_partition_bound.sql", "0151_emails_partition_bound_validated.sql"])
      await client.query(await readFile(path.join(MIGRATIONS_DIR, file), "utf8"));
    await client.query("set local client_min_messages = debug1");
    await client.query(await readFile(path.join(MIGRATIONS_DIR, "0152_partitioned_emails.sql"), "utf8"));
    await client.query("rollback");
    await migrate({ url });
    await then(client, notices);
  });
}
// The previous release's accept insert (the columns it names).
const oldInsert = (client: pg.Client, id: string) =>
  client.query(
    `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                         message_id_header, text)
     values ($1, 'old', 'keyaaaa00001', 'queued', 'a@d.test', '{b@d.test}', 's', 'c', '<m@d.test>', 't')
     returning tableoid::regclass::text as p`,
    [id],
  );
const bounds = async (client: pg.Client) =>
  (await client.query("select name, lower_id, upper_id from mailroom_email_partition_bounds()")).rows;
const count = async (client: pg.Client, table: string, id: string) =>
  (await client.query(`select count(*)::int as n from ${table} where email_id = $1`, [id])).rows[0].n;

describe("migrations 0150-0152", () => {
  it("attach the old emails whole up to the second Monday ahead, without reading them, and the old code keeps working", async () => {
    const email = newId();
    await beforeAndAfter(email, async (client, notices) => {
      expect(notices.join("\n")).toMatch(
        /partition constraint for table "emails_legacy" is implied by existing constraints/,
      );
      const [legacy, ...others] = await bounds(client);
      expect(others).toEqual([]);
      expect(legacy.name).toBe("emails_legacy");
      const { rows: expected } = await client.query(
        "select mailroom_uuidv7_floor(date_trunc('week', now(), 'UTC') + interval '2 weeks') as b",
      );
      expect(legacy.upper_id).toBe(expected[0].b);
      // Keys, indexes, checks and triggers are the parent's, under their names; the old table's are renamed.
      const { rows: indexes } = await client.query(
        "select indexname from pg_indexes where tablename = 'emails' order by 1",
      );
      expect(indexes.map((r) => r.indexname)).toEqual(
        expect.arrayContaining([
          "emails_pkey",
          "emails_account_id",
          "emails_unsent",
          "emails_subject_search",
        ]),
      );
      const { rows: legacyIndexes } = await client.query(
        "select indexname from pg_indexes where tablename = 'emails_legacy' order by 1",
      );
      expect(legacyIndexes.map((r) => r.indexname)).toContain("emails_legacy_pkey");
      await expect(
        client.query("update emails set subject = repeat('x', 1000) where id = $1", [email]),
      ).rejects.toMatchObject({ code: "23514" });
      // The old code's insert lands in the old table (its id is below the bound), its trigger still fires.
      const second = newId();
      expect((await oldInsert(client, second)).rows[0].p).toBe("emails_legacy");
      const { rows: subject } = await client.query("select subject from emails where id = $1", [second]);
      expect(subject[0].subject).toBe("s!");
      // A function typed by the row (setof emails) answers on the new table.
      const { rows: canceled } = await client.query("select * from mailroom_cancel_email($1, $2)", [
        email,
        randomUUID(),
      ]);
      expect(canceled[0].status).toBe("canceled");
      // Weeks are made only past the old table's range.
      const { rows: made } = await client.query("select mailroom_create_email_partitions(now(), 4) as n");
      expect(made.length).toBeGreaterThanOrEqual(2);
      for (const week of await bounds(client))
        if (week.name !== "emails_legacy") expect(week.lower_id >= legacy.upper_id).toBe(true);
      // No foreign key into emails; a delete of emails still takes its attachments and timeline along.
      const { rows: keys } = await client.query(
        "select conname from pg_constraint where contype = 'f' and confrelid in ('emails'::regclass, 'emails_legacy'::regclass)",
      );
      expect(keys).toEqual([]);
      await client.query("delete from emails where id = $1", [email]);
      expect(await count(client, "email_attachments", email)).toBe(0);
      expect(await count(client, "email_events", email)).toBe(0);
    });
  });

  it("upgrades a history from before the timeline's partitioning (0070) too: its old partition's key is dropped", async () => {
    const email = newId();
    await withDatabaseBefore("0070", async (client, url) => {
      await client.query("insert into accounts (account) values ('old')");
      await client.query(
        `insert into api_keys (key_id, account, secret_sha256, scopes) values ('keyaaaa00001', 'old', $1, '{send}')`,
        [Buffer.alloc(32)],
      );
      await oldInsert(client, email);
      await client.query("insert into email_events (email_id, type) values ($1, 'queued')", [email]);
      await migrate({ url });
      expect((await bounds(client)).map((b) => b.name)).toEqual(["emails_legacy"]);
      const { rows } = await client.query(
        "select tableoid::regclass::text as p from email_events where email_id = $1",
        [email],
      );
      expect(rows).toEqual([{ p: "email_events_legacy" }]);
      const { rows: keys } = await client.query(
        "select conname from pg_constraint where contype = 'f' and confrelid = 'emails_legacy'::regclass",
      );
      expect(keys).toEqual([]);
      await client.query("delete from emails where id = $1", [email]);
      expect(await count(client, "email_events", email)).toBe(0);
    });
  });

  it("keeps the whole range in the old table when it holds an id that is not a past UUIDv7", async () => {
    const email = randomUUID().replace(/^./, "f");
    await beforeAndAfter(email, async (client) => {
      expect((await bounds(client))[0]?.upper_id).toBe("ffffffff-ffff-ffff-ffff-ffffffffffff");
      expect((await client.query("select mailroom_create_email_partitions(now(), 4)")).rows).toEqual([]);
      expect((await client.query("select id from emails")).rows).toEqual([{ id: email }]);
    });
  });
});
