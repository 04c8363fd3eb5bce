import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { type PoolClient, withTransaction } from "../db/pool.ts";
import { acceptEmails } from "../emails/accept.ts";
import { enqueueDeliver, withinShareAnnounced } from "./index.ts";

// The flag `mailroom_enqueue_deliver` gives a job beyond its account's fair share (ADR 0064).
const OVER_FAIR_SHARE_FLAG = "over_fair_share";

// The order of `deliver` jobs across accounts (issue 31 item 3, ADR 0053): each job's priority is its
// account's lead over now in turns of 10 ms. Each case runs in one transaction, where now() stands still,
// so the priorities are exact.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("flood", (setup) => {
  ({ db, keyId } = setup);
});

/** Accepts `n` emails of `account` (its key is the one of the test's database), returns their job priorities. */
async function accept(client: PoolClient, account: string, n: number, scheduledAt?: Date): Promise<number[]> {
  const items = Array.from({ length: n }, () =>
    acceptItem(account, keyId, scheduledAt ? { draft: { scheduledAt } } : {}),
  );
  const ids = (await acceptEmails(client, { hostname: "test" }, items)).map((r) => r.messageId);
  return priorities(client, ids);
}

async function priorities(client: PoolClient, ids: string[]): Promise<number[]> {
  const { rows } = await client.query<{ id: string; priority: number }>(
    `select j.payload->>'emailId' as id, j.priority from graphile_worker._private_jobs j
     where j.payload->>'emailId' = any($1::text[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r.priority]));
  return ids.map((id) => byId.get(id) ?? Number.NaN);
}

const setClock = (client: PoolClient, account: string, offset: string) =>
  client.query(
    `insert into delivery_turns (account, next_at) values ($1, now() + $2::interval)
     on conflict (account) do update set next_at = excluded.next_at`,
    [account, offset],
  );

describe("deliver job priorities", () => {
  it("puts each account's jobs in its own turn, so a quiet account's first email ties the flood's first", async () => {
    await withTransaction(db.pool, async (client) => {
      expect(await accept(client, "flood", 5)).toEqual([0, 1, 2, 3, 4]);
      expect(await accept(client, "quiet", 1)).toEqual([0]);
      // The flood's clock runs 5 turns ahead: its next emails come after its first five.
      expect(await accept(client, "flood", 3)).toEqual([5, 6, 7]);
      expect(await accept(client, "quiet", 2)).toEqual([1, 2]);
    });
  });

  it("starts an account that has had nothing waiting at the front again, and caps a flood's lead", async () => {
    await withTransaction(db.pool, async (client) => {
      await setClock(client, "flood", "-1 minute");
      expect(await accept(client, "flood", 2)).toEqual([0, 1]);
      await setClock(client, "flood", "10 seconds");
      expect(await accept(client, "flood", 1)).toEqual([1000]);
      await setClock(client, "flood", "1 hour");
      expect(await accept(client, "flood", 2)).toEqual([32767, 32767]);
    });
  });

  it("orders scheduled sends and retries by the same clock, and a replaced job takes the new turn", async () => {
    await withTransaction(db.pool, async (client) => {
      await setClock(client, "quiet", "-1 minute");
      const later = new Date(Date.now() + 3_600_000);
      const [scheduled] = await accept(client, "quiet", 1, later);
      expect(scheduled).toBe(0);
      const { rows } = await client.query<{ id: string }>(
        "select id from emails where account = 'quiet' and status = 'scheduled' order by id desc limit 1",
      );
      const id = rows[0]?.id ?? "";
      // A retry (keyed, replacing the email's waiting job) after 300 more of the same account's emails.
      await accept(client, "quiet", 300);
      await enqueueDeliver(client, [{ emailId: id, runAt: later, keyed: true }]);
      expect(await priorities(client, [id])).toEqual([301]);
      const { rows: jobs } = await client.query<{ n: string }>(
        "select count(*) as n from graphile_worker._private_jobs where key = $1",
        [`deliver:${id}`],
      );
      expect(jobs[0]?.n).toBe("1");
    });
  });

  it("never waits on a clock another transaction holds: its jobs are credited to the clock's next holder", async () => {
    await withTransaction(db.pool, (client) => setClock(client, "flood", "1 hour"));
    const first = await db.pool.connect();
    const second = await db.pool.connect();
    try {
      await first.query("begin");
      expect(await accept(first, "flood", 5)).toEqual(Array(5).fill(32767));
      // The first transaction holds the flood's clock; waiting for it would fail here.
      await second.query("begin");
      await second.query("set local lock_timeout = '1s'");
      expect(await accept(second, "flood", 7)).toEqual(Array(7).fill(32767));
      await second.query("commit");
      await first.query("commit");
    } finally {
      first.release();
      second.release();
    }
    const clock = async () =>
      (
        await db.pool.query<{ next_at: Date; credits: number }>(
          `select (select next_at from delivery_turns where account = 'flood') as next_at,
                  (select coalesce(sum(jobs), 0)::int from delivery_turn_credits where account = 'flood') as credits`,
        )
      ).rows[0];
    const before = await clock();
    expect(before?.credits).toBe(7);
    await withTransaction(db.pool, (client) => accept(client, "flood", 2));
    const after = await clock();
    // The clock is an hour ahead, so it moves by exactly the credited 7 and the new 2 turns of 10 ms.
    expect((after?.next_at.getTime() ?? 0) - (before?.next_at.getTime() ?? 0)).toBe(90);
    expect(after?.credits).toBe(0);
  });
});

// The reserved delivery lane (ADR 0064) forbids graphile-worker's flag `over_fair_share`: only jobs added
// within one second (100 turns) of their account's fair share may run there.
describe("the reserved lane's flag", () => {
  /** Each job's priority and whether it carries the flag, in the order of `ids`. */
  async function flagged(client: PoolClient, ids: string[]): Promise<[number, boolean][]> {
    const { rows } = await client.query<{ id: string; priority: number; flags: Record<string, true> | null }>(
      `select j.payload->>'emailId' as id, j.priority, j.flags from graphile_worker._private_jobs j
       where j.payload->>'emailId' = any($1::text[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const job = byId.get(id);
      expect(job?.flags ?? { [OVER_FAIR_SHARE_FLAG]: true }).toEqual({ [OVER_FAIR_SHARE_FLAG]: true });
      return [job?.priority ?? Number.NaN, job?.flags != null];
    });
  }
  const acceptIds = async (client: PoolClient, account: string, n: number) =>
    (
      await acceptEmails(
        client,
        { hostname: "test" },
        Array.from({ length: n }, () => acceptItem(account, keyId)),
      )
    ).map((r) => r.messageId);

  it("flags a flood's jobs from its 100th turn ahead, never a quiet account's", async () => {
    await withTransaction(db.pool, async (client) => {
      await setClock(client, "flood", "-1 minute");
      const burst = await flagged(client, await acceptIds(client, "flood", 150));
      expect(burst.filter(([, flag]) => !flag).map(([p]) => p)).toEqual([...Array(100).keys()]);
      expect(burst.filter(([, flag]) => flag).map(([p]) => p)).toEqual(
        [...Array(50).keys()].map((k) => 100 + k),
      );
      await setClock(client, "quiet", "-1 minute");
      expect(await flagged(client, await acceptIds(client, "quiet", 1))).toEqual([[0, false]]);
      await setClock(client, "flood", "10 seconds");
      expect(await flagged(client, await acceptIds(client, "flood", 1))).toEqual([[1000, true]]);
    });
  });

  it("decides again when a keyed job is replaced (a retry of an account that has since gone quiet)", async () => {
    await withTransaction(db.pool, async (client) => {
      const [id = ""] = await acceptIds(client, "quiet", 1);
      const keyed = async () =>
        (
          await client.query<{ priority: number; flags: Record<string, true> | null }>(
            "select priority, flags from graphile_worker._private_jobs where key = $1",
            [`deliver:${id}`],
          )
        ).rows;
      await setClock(client, "quiet", "1 hour");
      await enqueueDeliver(client, [{ emailId: id, keyed: true }]);
      expect(await keyed()).toEqual([{ priority: 32767, flags: { [OVER_FAIR_SHARE_FLAG]: true } }]);
      await setClock(client, "quiet", "-1 minute");
      await enqueueDeliver(client, [{ emailId: id, keyed: true }]);
      expect(await keyed()).toEqual([{ priority: 0, flags: null }]);
    });
  });

  // The reserved lane wakes only for these announcements, so a flood's inserts cost it no fetch.
  it("announces the jobs within their share on graphile-worker's channel, and only those", async () => {
    const listener = await db.pool.connect();
    const payloads: string[] = [];
    listener.on("notification", (n) => {
      if (n.channel === "jobs:insert" && n.payload) payloads.push(n.payload);
    });
    try {
      await listener.query('listen "jobs:insert"');
      await withTransaction(db.pool, async (client) => {
        await setClock(client, "quiet", "-1 minute");
        await setClock(client, "flood", "-1 minute");
      });
      await withTransaction(db.pool, (client) => acceptIds(client, "quiet", 1));
      await withTransaction(db.pool, (client) => acceptIds(client, "flood", 150));
      await withTransaction(db.pool, async (client) => {
        await setClock(client, "flood", "10 seconds");
        await acceptIds(client, "flood", 100);
      });
      // A round trip on the listening connection delivers what was notified before it.
      await listener.query("select 1");
      expect(payloads.map(withinShareAnnounced)).toEqual([0, 1, 0, 100, 0]);
      // graphile-worker's runners read `count` and nudge nobody for 0.
      expect(payloads.filter((p) => withinShareAnnounced(p) > 0).map((p) => JSON.parse(p).count)).toEqual([
        0, 0,
      ]);
    } finally {
      await listener.query('unlisten "jobs:insert"');
      listener.release();
    }
  });
});

describe("withinShareAnnounced", () => {
  it("counts only the announcement of jobs within their share", () => {
    expect(withinShareAnnounced('{"count":0,"withinShare":3}')).toBe(3);
    for (const other of [
      '{"r":0.5,"count":100}',
      '{"withinShare":-1}',
      '{"withinShare":"2"}',
      "null",
      "",
      undefined,
    ])
      expect(withinShareAnnounced(other)).toBe(0);
  });
});
