import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { FUNCTIONS_DIR } from "../db/migrate.ts";
import { acceptEmails } from "../emails/accept.ts";
import { createDeliveryStore, type RecipientOutcome } from "../emails/delivery.ts";
import { appendEvents } from "../emails/events.ts";
import type { EmailDraft } from "../emails/types.ts";
import { createKey } from "../keys/index.ts";
import { LATENCY_BOUNDS_MS, normalizeStatsQuery, purgeEmailStats, readStats } from "./index.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("st", (setup) => {
  ({ db, keyId } = setup);
});

const policy = { baseDelaySeconds: 60, maxDelaySeconds: 3600, horizonSeconds: 86_400 };
type Flags = { sandbox?: boolean; simulated?: boolean; key?: string; account?: string };

let recipients = 0;
// Each email to its own recipient: a bounce suppresses its address for the rest of the account's mail.
async function accept(draft: Partial<EmailDraft>, flags: Flags = {}): Promise<string> {
  recipients += 1;
  const to = [`r${recipients}@example.test`];
  const { key = keyId, account = "st", ...marks } = flags;
  const item = { ...acceptItem(account, key, { draft: { to, ...draft } }), ...marks };
  const [result] = await acceptEmails(db.pool, { hostname: "test" }, [item]);
  return String(result?.messageId);
}

/** Claims an email and records one outcome for its one recipient, as the deliver task does. */
async function attempt(id: string, status: RecipientOutcome["status"], code: number): Promise<string> {
  const store = createDeliveryStore(db.pool);
  const claimed = await store.claim(id);
  if (claimed.outcome !== "send") return claimed.outcome;
  const outcomes = claimed.recipients.map((recipient) => ({
    recipient,
    status,
    code,
    response: `${code} x`,
  }));
  return (await store.record({ claimed, outcomes, policy })).status;
}

const read = (account: string, by?: string) =>
  readStats(db.pool, account, normalizeStatsQuery({ bucket: "hour", ...(by ? { by } : {}) }, new Date()));

describe("the overview's counters (issue 33 item 1)", () => {
  it("count each transition once as the lifecycle writes it, and leave sandbox and simulator mail out", async () => {
    const pro = [{ name: "plan", value: "pro" }];
    const a1 = await accept({ fromAddress: "a@one.test", category: "welcome", tags: pro });
    const a2 = await accept({ fromAddress: "a@One.test", category: "welcome" });
    const b1 = await accept({ fromAddress: "a@two.test", category: "receipt", tags: pro });
    const d1 = await accept({ fromAddress: "a@two.test", category: "receipt" });
    expect(await attempt(a1, "accepted", 250)).toBe("delivered");
    expect(await attempt(a2, "accepted", 250)).toBe("delivered");
    expect(await attempt(b1, "permanent", 550)).toBe("bounced");
    expect(await attempt(d1, "temporary", 451)).toBe("deferred");
    // A revoked key's email fails at the claim.
    const other = (await createKey(db.pool, { account: "st", scopes: ["send"], expires: "never" })).key;
    const f1 = await accept({ fromAddress: "a@two.test", category: "receipt" }, { key: other.keyId });
    await db.pool.query("update api_keys set revoked_at = now() where key_id = $1", [other.keyId]);
    expect(await attempt(f1, "accepted", 250)).toBe("failed");
    // A complaint and a bounce reported after the handover: neither is sent again.
    await appendEvents(db.pool, "st", [a1], "complained", { feedbackType: "abuse" });
    await appendEvents(db.pool, "st", [a2], "bounced", { later: true });
    // Never reaching a receiver, these never count (as in the reputation roll-up).
    expect(
      await attempt(await accept({ fromAddress: "a@one.test" }, { sandbox: true }), "accepted", 250),
    ).toBe("delivered");
    expect(
      await attempt(await accept({ fromAddress: "a@one.test" }, { simulated: true }), "accepted", 250),
    ).toBe("delivered");

    const view = await read("st", "domain");
    expect(view.totals).toMatchObject({
      sent: 3,
      delivered: 2,
      bounced: 2,
      complained: 1,
      failed: 1,
      deferred: 1,
      deliveryRate: 2 / 3,
    });
    // Accepted and delivered in the same few hundred milliseconds of this test.
    expect(view.totals.latency.p50Ms).toBeGreaterThan(0);
    expect(view.totals.latency.p50Ms).toBeLessThanOrEqual(
      LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] ?? 0,
    );
    expect(view.series).toHaveLength(24);
    // This hour's (and, had the test straddled an hour, the one before).
    expect(view.series.reduce((n, p) => n + p.sent, 0)).toBe(3);
    expect(view.series.slice(0, -2).every((p) => p.sent === 0 && p.latency.p50Ms === null)).toBe(true);
    expect(view.groups.map((g) => [g.value, g.sent, g.delivered, g.bounced, g.failed, g.deferred])).toEqual([
      ["one.test", 2, 2, 1, 0, 0],
      ["two.test", 1, 0, 1, 1, 1],
    ]);
    expect((await read("st", "category")).groups.map((g) => [g.value, g.sent, g.complained])).toEqual([
      ["welcome", 2, 1],
      ["receipt", 1, 0],
    ]);
    expect((await read("st", "tag")).groups.map((g) => [g.value, g.sent, g.delivered, g.bounced])).toEqual([
      ["plan:pro", 2, 1, 1],
    ]);
    // Another account sees none of it.
    expect((await read("nobody")).totals).toMatchObject({
      sent: 0,
      deliveryRate: null,
      latency: { p50Ms: null },
    });
  });

  it("keep the histogram's bounds in one list, shared by SQL and TypeScript", async () => {
    const { rows } = await db.pool.query<{ bounds: number[] }>(
      "select mailroom_stats_latency_bounds() as bounds",
    );
    expect(rows[0]?.bounds).toEqual(LATENCY_BOUNDS_MS);
  });

  it("stay exact when many deliveries of one account are recorded at once", async () => {
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        accept(
          {
            fromAddress: `a@d${i % 4}.test`,
            category: `c${i % 3}`,
            tags: [{ name: "n", value: String(i % 5) }],
          },
          {
            account: "busy",
          },
        ),
      ),
    );
    const outcomes = await Promise.all(ids.map((id) => attempt(id, "accepted", 250)));
    expect(outcomes.every((o) => o === "delivered")).toBe(true);
    const view = await read("busy", "tag");
    expect(view.totals).toMatchObject({ sent: 40, delivered: 40 });
    expect(view.groups.map((g) => g.delivered).reduce((a, b) => a + b, 0)).toBe(40);
  });

  it("give a daily period the same figures from the days' rows as from the hours' (issue 33)", async () => {
    const now = new Date();
    for (const by of [undefined, "domain", "category", "tag"]) {
      const query = normalizeStatsQuery({ bucket: "day", ...(by ? { by } : {}) }, now);
      const days = await readStats(db.pool, "st", query);
      expect(days.totals.sent).toBe(3);
      expect(days).toEqual(await readStats(db.pool, "st", query, "hours"));
    }
    // The days counted before the days' table existed are summed from their hours once, when the counting
    // function is applied (migration 0173): hours of other days, written as older releases left them.
    await db.pool.query(
      `insert into email_stats (account, dimension, hour, value, sent, delivered, deferred, latency)
       select 'past', d.dimension, date_trunc('day', now(), 'UTC') - make_interval(hours => h), d.value, h, h - 1, 1,
              array_fill(h % 3, array[31])
       from generate_series(1, 24 * 5, 7) as h,
            (values ('', ''), ('category', 'welcome'), ('category', 'receipt')) as d(dimension, value)`,
    );
    const before = await db.pool.query("select count(*)::int as n from email_stats_daily");
    await db.pool.query("delete from email_stats_daily");
    await db.pool.query(await readFile(path.join(FUNCTIONS_DIR, "mailroom_count_email_stats.sql"), "utf8"));
    expect(
      (await db.pool.query("select count(*)::int as n from email_stats_daily")).rows[0].n,
    ).toBeGreaterThan(before.rows[0].n);
    for (const account of ["past", "st"]) {
      const query = normalizeStatsQuery({ bucket: "day", by: "category" }, now);
      const days = await readStats(db.pool, account, query);
      expect(days).toEqual(await readStats(db.pool, account, query, "hours"));
      expect(days.series.filter((p) => p.sent > 0).length).toBeGreaterThan(account === "past" ? 3 : 0);
    }
    await db.pool.query("delete from email_stats where account = 'past'");
    await db.pool.query("delete from email_stats_daily where account = 'past'");
  });

  it("are purged past their retention, and kept with 0", async () => {
    await db.pool.query(
      `insert into email_stats (account, dimension, hour, value, sent, latency)
       values ('old', '', date_trunc('hour', now()) - interval '401 days', '', 5, '{}')`,
    );
    expect(await purgeEmailStats(db.pool, new Date(), 0)).toBe(0);
    expect(await purgeEmailStats(db.pool, new Date(), 400)).toBe(1);
    // By whole UTC days, the hours' rows and the days' alike: a day is in both sources or in neither.
    await db.pool.query(
      `insert into email_stats (account, dimension, hour, value, sent, latency)
       values ('old', '', date_trunc('day', now(), 'UTC') - interval '400 days' + interval '1 hour', '', 5, '{}')`,
    );
    await db.pool.query(
      `insert into email_stats_daily (account, dimension, day, value, sent, latency)
       values ('old', '', date_trunc('day', now(), 'UTC') - interval '400 days', '', 5, '{}'),
              ('old', '', date_trunc('day', now(), 'UTC') - interval '401 days', '', 5, '{}')`,
    );
    expect(await purgeEmailStats(db.pool, new Date(), 400)).toBe(1);
    expect(
      (await db.pool.query("select count(*)::int as n from email_stats where account = 'old'")).rows[0].n,
    ).toBe(1);
    expect((await read("st")).totals.sent).toBe(3);
  });
});
