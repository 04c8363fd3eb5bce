import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { purgeExpiredWebhookEvents } from "../webhooks/retention.ts";
import { acceptEmails } from "./accept.ts";
import { purgeExpiredEmails } from "./retention.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("retention", (setup) => {
  ({ db, keyId } = setup);
});

const days = (n: number) => new Date(Date.now() + n * 86_400_000);

async function accept(count: number, status: string) {
  const items = Array.from({ length: count }, (_, i) =>
    acceptItem("retention", keyId, {
      idempotencyKey: `retention-${status}-${i}-${randomUUID()}`,
      draft: {
        attachments: [{ filename: "a.txt", contentType: "text/plain", content: Buffer.from("a") }],
      },
    }),
  );
  const results = await acceptEmails(db.pool, { hostname: "test" }, items);
  const ids = results.map((r) => r.messageId as string);
  await db.pool.query(`update emails set status = $2 where id = any($1)`, [ids, status]);
  return ids;
}

async function count(table: string, ids: string[], column = "email_id") {
  const { rows } = await db.pool.query(`select count(*)::int as n from ${table} where ${column} = any($1)`, [
    ids,
  ]);
  return rows[0].n as number;
}

describe("email retention", () => {
  it("purges finished emails past the retention with their timeline and attachments, and nothing else", async () => {
    const finished = [
      ...(await accept(2, "delivered")),
      ...(await accept(1, "bounced")),
      ...(await accept(1, "failed")),
      ...(await accept(1, "canceled")),
    ];
    const unfinished = [...(await accept(1, "queued")), ...(await accept(1, "deferred"))];
    const all = [...finished, ...unfinished];
    expect(await count("email_events", all)).toBeGreaterThan(0);
    expect(await count("email_attachments", all)).toBe(7);

    // 29 days on, with 30 days of retention: nothing is old enough.
    expect((await purgeExpiredEmails(db.pool, 30, { now: days(29) })).emails).toBe(0);
    // 31 days on, in batches of 2: every finished email goes, in three statements; unsent mail stays.
    const purged = (await purgeExpiredEmails(db.pool, 30, { now: days(31), batchSize: 2 })).emails;
    expect(purged).toBeGreaterThanOrEqual(finished.length); // other tests' emails in this database may go too
    expect(await count("emails", finished, "id")).toBe(0);
    expect(await count("email_events", finished)).toBe(0);
    expect(await count("email_attachments", finished)).toBe(0);
    expect(await count("emails", unfinished, "id")).toBe(2);
    expect(await count("email_attachments", unfinished)).toBe(2);
  });

  it("keeps an email that changed inside the retention even when it was created before it", async () => {
    const [id] = await accept(1, "delivered");
    await db.pool.query(`update emails set updated_at = $2 where id = $1`, [id, days(5)]);
    await purgeExpiredEmails(db.pool, 30, { now: days(31) });
    expect(await count("emails", [id as string], "id")).toBe(1);
    await purgeExpiredEmails(db.pool, 30, { now: days(36) });
    expect(await count("emails", [id as string], "id")).toBe(0);
  });
});

describe("webhook event retention", () => {
  it("purges fanned-out events past the retention with their deliveries and attempts", async () => {
    const endpoint = randomUUID();
    await db.pool.query(
      `insert into webhook_endpoints (id, account, url) values ($1, mailroom_ensure_account('retention'), 'https://hooks.example.test/')`,
      [endpoint],
    );
    const event = async (fannedOut: boolean) => {
      const id = randomUUID();
      await db.pool.query(
        `insert into webhook_events (id, account, type, stream, data, fanned_out_at)
         values ($1, 'retention', 'email.delivered', 'retention', '{}', $2)`,
        [id, fannedOut ? new Date() : null],
      );
      const { rows } = await db.pool.query(
        `insert into webhook_deliveries (endpoint_id, event_id, stream, event_seq, state)
         select $1, id, stream, seq, 'succeeded' from webhook_events where id = $2 returning id`,
        [endpoint, id],
      );
      await db.pool.query(
        `insert into webhook_attempts (delivery_id, endpoint_id, attempt, duration_ms, status_code)
         values ($1, $2, 1, 12, 200)`,
        [rows[0].id, endpoint],
      );
      return id;
    };
    const sent = await event(true);
    const waiting = await event(false);

    expect(await purgeExpiredWebhookEvents(db.pool, 30, { now: days(29) })).toBe(0);
    expect(await purgeExpiredWebhookEvents(db.pool, 30, { now: days(31) })).toBe(1);
    expect(await count("webhook_events", [sent], "id")).toBe(0);
    expect(await count("webhook_deliveries", [sent], "event_id")).toBe(0);
    const { rows } = await db.pool.query(
      `select count(*)::int as n from webhook_attempts where endpoint_id = $1`,
      [endpoint],
    );
    expect(rows[0].n).toBe(1); // the unfanned event's attempt only
    expect(await count("webhook_events", [waiting], "id")).toBe(1);
  });
});
