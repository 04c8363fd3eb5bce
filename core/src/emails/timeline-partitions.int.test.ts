import { randomUUID } from "node:crypto";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey, withDatabaseBefore } from "../../../test/support/db.ts";
import { newId } from "../db/ids.ts";
import { migrate } from "../db/migrate.ts";
import { createKey } from "../keys/index.ts";
import { acceptEmails } from "./accept.ts";
import { listEvents } from "./events.ts";
import { purgeExpiredEmails } from "./retention.ts";
import { prepareTimelinePartitions, TIMELINE_WEEKS_AHEAD } from "./timeline-partitions.ts";

// ADR 0043: the timeline is partitioned by week of acceptance (email ids are UUIDv7) and retention drops a
// week whole once it is past the longest retention in force; per-account retention deletes rows.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("timeline", (setup) => {
  ({ db, keyId } = setup);
});

const days = (n: number) => new Date(Date.now() + n * 86_400_000);
/** The name of the partition of the week (UTC, from Monday) of `t`. */
const weekOf = (t: Date) => {
  const monday = new Date(
    Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() - ((t.getUTCDay() + 6) % 7)),
  );
  return `email_events_${monday.toISOString().slice(0, 10).replaceAll("-", "")}`;
};

async function accept(account: string, key: string, count: number, status = "delivered") {
  const items = Array.from({ length: count }, () => acceptItem(account, key));
  const ids = (await acceptEmails(db.pool, { hostname: "test" }, items)).map((r) => r.messageId as string);
  await db.pool.query("update emails set status = $2 where id = any($1)", [ids, status]);
  return ids;
}
const count = async (sql: string, ids: string[]) =>
  (await db.pool.query<{ n: number }>(`select count(*)::int as n from ${sql} = any($1)`, [ids])).rows[0]?.n;
const partitionsOf = async (ids: string[]) =>
  (
    await db.pool.query<{ p: string }>(
      "select distinct tableoid::regclass::text as p from email_events where email_id = any($1)",
      [ids],
    )
  ).rows.map((r) => r.p);
const finishEverything = () =>
  db.pool.query(
    "update emails set status = 'delivered' where status not in ('delivered', 'bounced', 'failed', 'canceled')",
  );

describe("timeline partitions (issue 28 item 5)", () => {
  it("makes this week's partition and the next ones once, and an email's events land in its week's", async () => {
    const now = new Date();
    const made = (await prepareTimelinePartitions(db.pool, now)).filter((n) => n.startsWith("email_events_"));
    expect(made).toHaveLength(TIMELINE_WEEKS_AHEAD + 1);
    expect(made[0]).toBe(weekOf(now));
    expect(made[1]).toBe(weekOf(days(7)));
    expect(await prepareTimelinePartitions(db.pool, now)).toEqual([]);
    const ids = await accept("timeline", keyId, 3);
    expect(await partitionsOf(ids)).toEqual([weekOf(now)]);
    expect((await listEvents(db.pool, ids[0] as string)).map((e) => e.type)).toEqual(["queued"]);
  });

  it("reads by event id through an index in every week, as the reputation roll-up does (no scan of the weeks)", async () => {
    await prepareTimelinePartitions(db.pool, new Date());
    const client = await db.pool.connect();
    try {
      // A planner that may scan would, on tables this small: forbid it, so only an index path can be chosen.
      await client.query("begin; set local enable_seqscan = off; set local enable_bitmapscan = off");
      const plan = async (sql: string) =>
        (await client.query<{ "QUERY PLAN": string }>(`explain ${sql}`)).rows
          .map((r) => r["QUERY PLAN"])
          .join("\n");
      for (const sql of [
        "select max(id) from email_events",
        "select * from email_events where id > 5 and id <= 9",
      ]) {
        const text = await plan(sql);
        // Every scan uses a week's index on id (`email_events_<week>_id_idx`), never the (email_id, id) one.
        const scans = text.split("\n").filter((line) => line.includes("Scan"));
        expect(scans.length, sql).toBeGreaterThan(1);
        for (const scan of scans)
          expect(scan, sql).toMatch(/Index (Only )?Scan.* using email_events_(\d{8}|default)_id_idx/);
      }
    } finally {
      await client.query("rollback");
      client.release();
    }
  });

  it("keeps each account's retention: rows go by account, the week goes only past the longest", async () => {
    const shortKey = (await createKey(db.pool, { account: "short", scopes: ["send"], expires: "never" })).key
      .keyId;
    const longKey = (await createKey(db.pool, { account: "long", scopes: ["send"], expires: "never" })).key
      .keyId;
    await db.pool.query("update accounts set retention_days = 5 where account = 'short'");
    await db.pool.query("update accounts set retention_days = 60 where account = 'long'");
    const short = await accept("short", shortKey, 2);
    const long = await accept("long", longKey, 2);
    const plain = await accept("timeline", keyId, 2);
    await finishEverything();

    // Ten days on: only the 5-day account's emails are past their retention; the week stays (60 days).
    let purge = await purgeExpiredEmails(db.pool, 30, { now: days(10) });
    expect(purge.partitions).toEqual([]);
    expect(await count("emails where id", short)).toBe(0);
    expect(await count("emails where id", [...long, ...plain])).toBe(4);
    // Forty days on: the installation's 30 days are past too; the 60-day account keeps emails and timeline.
    purge = await purgeExpiredEmails(db.pool, 30, { now: days(40) });
    expect(purge.partitions).toEqual([]);
    expect(await count("emails where id", plain)).toBe(0);
    expect(await count("emails where id", long)).toBe(2);
    expect(await count("email_events where email_id", long)).toBe(2);
    // A third account keeping its emails forever (0) means no week is ever dropped whole.
    await db.pool.query("update accounts set retention_days = 0 where account = 'timeline'");
    purge = await purgeExpiredEmails(db.pool, 30, { now: days(400) });
    expect(purge.partitions).toEqual([]);
    expect(await count("emails where id", long)).toBe(0);
    await db.pool.query("update accounts set retention_days = null where account = 'timeline'");
  });

  it("drops a week whole once past retention, not while one of its emails is unsent", async () => {
    const now = new Date();
    const sent = await accept("timeline", keyId, 3);
    const [waiting] = await accept("timeline", keyId, 1, "deferred");
    await db.pool.query("update accounts set retention_days = null");
    let purge = await purgeExpiredEmails(db.pool, 30, { now: days(45) });
    expect(purge.partitions).not.toContain(weekOf(now));
    expect(await count("emails where id", sent)).toBe(0); // rows past retention still go
    expect(await count("email_events where email_id", [waiting as string])).toBe(1);

    await finishEverything();
    // A reader in an open transaction holds the timeline: the drop gives up after its lock timeout (1 s)
    // instead of queueing the writers behind it, and the week goes at the next run.
    const reader = await db.pool.connect();
    try {
      await reader.query("begin");
      await reader.query("select count(*) from email_events");
      purge = await purgeExpiredEmails(db.pool, 30, { now: days(45) });
      expect(purge.partitions).not.toContain(weekOf(now));
      expect(purge.emails).toBeGreaterThanOrEqual(1); // the rows still go
    } finally {
      await reader.query("rollback");
      reader.release();
    }
    purge = await purgeExpiredEmails(db.pool, 30, { now: days(45) });
    expect(purge.partitions).toContain(weekOf(now));
    const { rows } = await db.pool.query("select to_regclass($1) as t", [weekOf(now)]);
    expect(rows[0].t).toBeNull();

    // The week's range now belongs to the default partition: new events land there, and this week's
    // partition is not made again over them.
    const late = await accept("timeline", keyId, 1);
    expect(await partitionsOf(late)).toEqual(["email_events_default"]);
    expect(await prepareTimelinePartitions(db.pool, now)).not.toContain(weekOf(now));
  });
});

/** A database migrated to just before 0070, with one email of `id` and two timeline events; `then` runs after 0070. */
async function beforeAndAfter0070(id: string, then: (client: pg.Client) => Promise<void>) {
  await withDatabaseBefore("0070", async (client, url) => {
    await client.query("insert into accounts (account) values ('old')");
    await client.query(
      `insert into api_keys (key_id, account, secret_sha256, scopes) values ('keyaaaa00001', 'old', $1, '{send}')`,
      [Buffer.alloc(32)],
    );
    await client.query(
      `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                           message_id_header, text)
       values ($1, 'old', 'keyaaaa00001', 'queued', 'a@d.test', '{b@d.test}', 's', 'c', '<m@d.test>', 't')`,
      [id],
    );
    await oldInsert(client, id, "queued");
    await oldInsert(client, id, "sending");
    await migrate({ url });
    await then(client);
  });
}
// The old code's statements: mailroom_append_email_events' insert and the timeline's read.
const oldInsert = (client: pg.Client, id: string, type: string) =>
  client.query("insert into email_events (email_id, type, detail) values ($1, $2, '{}')", [id, type]);
const oldRead = async (client: pg.Client, id: string) =>
  (
    await client.query("select type, at, detail from email_events where email_id = $1 order by id", [id])
  ).rows.map((r) => r.type);
const bounds = async (client: pg.Client) =>
  (await client.query("select name, lower_id, upper_id from mailroom_email_event_partition_bounds()")).rows;
const makeWeeks = async (client: pg.Client) =>
  (await client.query("select mailroom_create_email_event_partitions(now(), 4) as n")).rows.map((r) => r.n);

describe("migration 0070", () => {
  it("attaches the old timeline whole up to next week, and the old code's statements keep working", async () => {
    const email = newId();
    await beforeAndAfter0070(email, async (client) => {
      const [legacy, ...others] = await bounds(client);
      expect(others).toEqual([]);
      expect(legacy.name).toBe("email_events_legacy");
      expect(legacy.lower_id).toBe("00000000-0000-0000-0000-000000000000");
      await oldInsert(client, email, "delivered");
      expect(await oldRead(client, email)).toEqual(["queued", "sending", "delivered"]);
      // The week the legacy partition covers is not made again; the following ones are.
      expect(await makeWeeks(client)).toEqual([1, 2, 3, 4].map((w) => weekOf(days(7 * w))));
      // A new email's events go to their week's partition, and the ids keep rising.
      const { rows } = await client.query("select max(id) as m from email_events_legacy");
      const { rows: fresh } = await client.query(
        "insert into email_events (email_id, type) values ($1, 'queued') returning id, tableoid::regclass::text as p",
        [email],
      );
      expect(fresh[0].p).toBe("email_events_legacy");
      expect(BigInt(fresh[0].id)).toBeGreaterThan(BigInt(rows[0].m));
      // A cascading delete from the emails reaches the old rows.
      await client.query("delete from emails where id = $1", [email]);
      expect(await oldRead(client, email)).toEqual([]);
    });
  });

  it("keeps the whole range in the old table when it holds an id that is not a past UUIDv7", async () => {
    const email = randomUUID().replace(/^./, "f");
    await beforeAndAfter0070(email, async (client) => {
      expect((await bounds(client))[0]?.upper_id).toBe("ffffffff-ffff-ffff-ffff-ffffffffffff");
      expect(await makeWeeks(client)).toEqual([]);
      expect(await oldRead(client, email)).toEqual(["queued", "sending"]);
    });
  });
});
