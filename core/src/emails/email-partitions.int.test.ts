import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { acceptEmails } from "./accept.ts";
import { listEmails, listEmailsQuery } from "./log.ts";
import { getEmail } from "./queries.ts";
import { purgeExpiredEmails } from "./retention.ts";
import { prepareTimelinePartitions } from "./timeline-partitions.ts";

// ADR 0055: the email log (emails) is partitioned by week of acceptance like its timeline; retention drops a
// week of emails whole, the log's reads stay on the weeks their ids point at, and nothing unique is lost.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("log-weeks", (setup) => {
  ({ db, keyId } = setup);
});

const DAY_MS = 86_400_000;
const days = (n: number) => new Date(Date.now() + n * DAY_MS);
/** The Monday (UTC) that starts the week of `t`. */
const mondayOf = (t: Date) =>
  new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() - ((t.getUTCDay() + 6) % 7)));
/** The name of the emails partition of the week of `t`. */
const weekOf = (t: Date) => `emails_${mondayOf(t).toISOString().slice(0, 10).replaceAll("-", "")}`;
/** Tuesday noon of the week two weeks back: a whole week, past, whatever today is. */
const PAST = new Date(mondayOf(days(-14)).getTime() + 1.5 * DAY_MS);
const attachment = { filename: "a.txt", contentType: "text/plain", content: Buffer.from("a") };

async function accept(count: number, options: { key?: string; status?: string } = {}) {
  const items = Array.from({ length: count }, (_, i) =>
    acceptItem("log-weeks", keyId, {
      idempotencyKey: options.key && `${options.key}-${i}`,
      draft: { attachments: [attachment] },
    }),
  );
  const ids = (await acceptEmails(db.pool, { hostname: "test" }, items)).map((r) => r.messageId);
  await db.pool.query("update emails set status = $2 where id = any($1)", [
    ids,
    options.status ?? "delivered",
  ]);
  return ids;
}
const partitionOf = async (id: string) =>
  (await db.pool.query("select tableoid::regclass::text as p from emails where id = $1", [id])).rows[0]?.p;
const count = async (table: string, column: string, ids: string[]) =>
  (await db.pool.query(`select count(*)::int as n from ${table} where ${column} = any($1)`, [ids])).rows[0]
    ?.n;
/** Emails accepted at `at` (plus i seconds, UUIDv7 ids of that time), written as the accept does, finished. */
async function insertAged(at: Date, n: number): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                         message_id_header, text, created_at, updated_at)
     select (substr(mailroom_uuidv7_floor($1::timestamptz + make_interval(secs => i))::text, 1, 24)
             || lpad(i::text, 12, '0'))::uuid,
            'log-weeks', $2, 'delivered', 'a@d.test', '{b@d.test}', 's', 'c', '<m' || i || '@d.test>', 't',
            $1::timestamptz + make_interval(secs => i), now()
     from generate_series(1, $3) as i
     returning id`,
    [at, keyId, n],
  );
  return rows.map((r) => r.id).sort();
}
/** The plan of a statement run with its values, as the pool runs its statements (unnamed: values known when planning). */
async function plan(query: { text: string; values: unknown[] }): Promise<string> {
  const { rows } = await db.pool.query(
    `explain (analyze, costs off, timing off, summary off) ${query.text}`,
    query.values,
  );
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}
const scanned = (text: string) =>
  [...text.matchAll(/Scan(?: Backward)? using \w+ on (emails_\w+)/g)].map((m) => m[1] as string);

describe("the email log partitioned by week (issue 28 item 5)", () => {
  it("makes the log's weeks ahead with the timeline's, and an email lands in its week's partition", async () => {
    // A new installation has the week it was migrated in and the next four (migration 0152); the purge job
    // makes the rest. The weeks of the migration's time, not of now: the run's template database can have
    // been migrated in the week before (a run that crosses Monday 00:00 UTC).
    const weeks = async () =>
      (await db.pool.query("select name from mailroom_email_partition_bounds()")).rows.map((r) => r.name);
    const { rows: migrated } = await db.pool.query<{ at: Date }>(
      // node-pg-migrate keeps `now()` as a timestamp without time zone, in the session's zone.
      `select run_on at time zone current_setting('TimeZone') as at from mailroom_migrations
       where name = '0152_partitioned_emails'`,
    );
    const migratedAt = migrated[0]?.at ?? new Date(Number.NaN);
    expect(await weeks()).toEqual(
      expect.arrayContaining([weekOf(migratedAt), weekOf(new Date(migratedAt.getTime() + 28 * DAY_MS))]),
    );
    const made = await prepareTimelinePartitions(db.pool, days(7));
    expect(made).toContain(weekOf(days(35)));
    expect(made).toContain(`email_events_${weekOf(days(35)).slice("emails_".length)}`);
    const [id] = await accept(1);
    expect(await partitionOf(id as string)).toBe(weekOf(new Date()));
    // Every week has the parent's keys and indexes (made on the parent: the weeks made later too).
    const { rows } = await db.pool.query(
      `select count(*)::int as n from pg_indexes where tablename = $1 and indexdef like '%UNIQUE%(id)'`,
      [weekOf(days(21))],
    );
    expect(rows[0].n).toBe(1);
  });

  it("keeps ids and idempotency keys unique across weeks and the default partition", async () => {
    // Accepted before its week existed (ten weeks ago, never made): the default partition.
    const [old] = await insertAged(days(-70), 1);
    expect(await partitionOf(old as string)).toBe("emails_default");
    const [first] = await accept(1, { key: "unique" });
    const again = await acceptEmails(db.pool, { hostname: "test" }, [
      acceptItem("log-weeks", keyId, { idempotencyKey: "unique-0", draft: { attachments: [attachment] } }),
    ]);
    expect(again).toEqual([{ status: "duplicate", messageId: first }]);
    // The primary key is the partition key: the same id is refused wherever it would land.
    for (const id of [old, first]) {
      await expect(
        db.pool.query(
          `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                               message_id_header, text)
           values ($1, 'log-weeks', $2, 'queued', 'a@d.test', '{b@d.test}', 's', 'c', '<x@d.test>', 't')`,
          [id, keyId],
        ),
      ).rejects.toMatchObject({ code: "23505" });
    }
  });

  it("reads one email by id from its week alone, and pages across weeks by cursor, newer weeks pruned", async () => {
    await prepareTimelinePartitions(db.pool, PAST);
    const older = await insertAged(PAST, 3);
    const newer = await accept(3);
    expect(await partitionOf(older[0] as string)).toBe(weekOf(PAST));
    // One email by id: its own week only.
    expect((await getEmail(db.pool, "log-weeks", older[1] as string))?.id).toBe(older[1]);
    const one = await plan({
      text: "select * from emails where id = $1 and account = $2",
      values: [older[1], "log-weeks"],
    });
    expect(scanned(one)).toEqual([weekOf(PAST)]);
    // Cursor paging crosses the week boundary in order, nothing skipped or repeated.
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await listEmails(db.pool, "log-weeks", { limit: 2, after, since: mondayOf(PAST) });
      seen.push(...page.data.map((e) => e.id));
      if (!page.hasMore) break;
      after = page.data.at(-1)?.id;
    }
    const all = (
      await db.pool.query("select id from emails where account = 'log-weeks' and created_at >= $1", [
        mondayOf(PAST),
      ])
    ).rows.map((r) => r.id as string);
    expect(seen).toEqual(all.sort().reverse());
    expect(seen).toEqual(expect.arrayContaining([...older, ...newer]));
    // A page past a cursor in the older week reads no newer week: they are pruned when the query starts.
    const deep = await plan(listEmailsQuery("log-weeks", { limit: 2, after: older[2] }));
    const newest = weekOf(PAST);
    expect(scanned(deep).filter((p) => p !== "emails_default" && p > newest)).toEqual([]);
    expect(scanned(deep)).toContain(newest);
    // A time range reads its weeks only.
    const range = await plan(
      listEmailsQuery("log-weeks", { limit: 2, since: PAST, until: new Date(PAST.getTime() + DAY_MS) }),
    );
    expect(scanned(range)).toEqual([weekOf(PAST)]);
  });

  it("drops a week of emails whole past retention, with its attachments and timeline, not while one is unsent", async () => {
    await db.pool.query("update accounts set retention_days = null");
    const at = new Date(PAST.getTime() - 7 * DAY_MS);
    await prepareTimelinePartitions(db.pool, at);
    const week = weekOf(at);
    const [waiting, ...sent] = await insertAged(at, 3);
    expect(await count("email_addresses", "email_id", [...sent, waiting as string])).toBe(3);
    expect(await count("email_search_texts", "email_id", [...sent, waiting as string])).toBe(3);
    await db.pool.query(
      `insert into email_attachments (email_id, position, filename, content_type, content)
       select id, 0, 'a.txt', 'text/plain', 'a' from emails where id = any($1)`,
      [sent],
    );
    await db.pool.query("update emails set status = 'deferred' where id = $1", [waiting]);
    // Past every retention (30 days): the week is kept while one of its emails is unsent.
    let purge = await purgeExpiredEmails(db.pool, 30, { now: days(40) });
    expect(purge.partitions).not.toContain(week);
    await db.pool.query("update emails set status = 'delivered' where id = $1", [waiting]);
    purge = await purgeExpiredEmails(db.pool, 30, { now: days(40) });
    expect(purge.partitions).toContain(week);
    expect(purge.partitions).toContain(`email_events_${week.slice("emails_".length)}`);
    expect((await db.pool.query("select to_regclass($1) as t", [week])).rows[0].t).toBeNull();
    expect(await count("emails", "id", [...sent, waiting as string])).toBe(0);
    expect(await count("email_attachments", "email_id", sent)).toBe(0);
    expect(await count("email_addresses", "email_id", [...sent, waiting as string])).toBe(0);
    expect(await count("email_search_texts", "email_id", [...sent, waiting as string])).toBe(0);
  });

  it("deletes the attachments, raw messages, sandbox captures, searched addresses and texts of the emails a statement deletes", async () => {
    const ids = await accept(2);
    await db.pool.query(
      `insert into email_raw_messages (email_id, content) select id, 'raw' from emails where id = any($1)`,
      [ids],
    );
    await db.pool.query(
      `insert into sandbox_messages (id, email_id, account, envelope_from, recipients, subject, raw)
       select gen_random_uuid(), id, 'log-weeks', 'a@d.test', '{b@d.test}', 's', 'raw' from emails where id = any($1)`,
      [ids],
    );
    expect(await count("email_attachments", "email_id", ids)).toBe(2);
    // The search's addresses (ADR 0061): the sender and the recipient of each.
    expect(await count("email_addresses", "email_id", ids)).toBe(4);
    expect(await count("email_search_texts", "email_id", ids)).toBe(2);
    await db.pool.query("delete from emails where id = any($1)", [ids]);
    expect(await count("email_addresses", "email_id", ids)).toBe(0);
    expect(await count("email_search_texts", "email_id", ids)).toBe(0);
    expect(await count("email_attachments", "email_id", ids)).toBe(0);
    expect(await count("email_raw_messages", "email_id", ids)).toBe(0);
    expect(await count("sandbox_messages", "email_id", ids)).toBe(0);
    expect(await count("email_events", "email_id", ids)).toBe(0);
  });
});
