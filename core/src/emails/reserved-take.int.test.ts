import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { beatReserved, clearJobsAndClocks } from "../../../test/support/jobs.ts";
import { type PoolClient, withTransaction } from "../db/pool.ts";
import { completeTakenJobs, failTakenJob } from "../jobs/index.ts";
import { acceptEmails } from "./accept.ts";
import { takeReservedDeliveries } from "./delivery.ts";
import { cancelEmail } from "./log.ts";

// The reserved lane's take (ADR 0075): jobs within their share locked and their emails claimed in one
// statement. Each case starts from a clean slate: no job, no heartbeat, no account clock.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("flood", (setup) => {
  ({ db, keyId } = setup);
});

async function accept(client: PoolClient, account: string, n: number, scheduledAt?: Date): Promise<string[]> {
  const items = Array.from({ length: n }, () =>
    acceptItem(account, keyId, scheduledAt ? { draft: { scheduledAt } } : {}),
  );
  return (await acceptEmails(client, { hostname: "test" }, items)).map((r) => String(r.messageId));
}

async function jobsOf(client: PoolClient) {
  const { rows } = await client.query<{
    email_id: string;
    task: string;
    locked_by: string | null;
    attempts: number;
    last_error: string | null;
    later: boolean;
  }>(
    `select j.payload->>'emailId' as email_id, t.identifier as task, j.locked_by, j.attempts, j.last_error,
            j.run_at > now() as later
     from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`,
  );
  return new Map(rows.map((r) => [r.email_id, r]));
}

async function statusOf(client: PoolClient, ids: readonly string[]): Promise<Record<string, number>> {
  const { rows } = await client.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from emails where id = any($1::uuid[]) group by status",
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe("the reserved lane's take", () => {
  it("locks every job within the share and claims the unkeyed ones' emails; a keyed job comes unclaimed", async () => {
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      // Added while no reserved lane lived: `deliver`, unkeyed, within the share.
      const [early] = await accept(client, "early", 1);
      await beatReserved(client, "reserved-1");
      // 100 within the share (`deliver_reserved`), 50 beyond it (`deliver`, flagged).
      const flood = await accept(client, "flood", 150);
      const [quiet] = await accept(client, "quiet", 1);
      // A scheduled send come due: a keyed `deliver` job.
      const [due] = await accept(client, "scheduled", 1, new Date(Date.now() + 3_600_000));
      await client.query(
        "update graphile_worker._private_jobs set run_at = now() - interval '1 second' where key = $1",
        [`deliver:${due}`],
      );
      const taken = await takeReservedDeliveries(client, "reserved-1", 500);
      expect(taken).toHaveLength(103);
      const byEmail = new Map(taken.map((t) => [t.payload.emailId, t]));
      expect(byEmail.get(String(due))?.claimed).toBeUndefined();
      for (const id of [early, quiet, ...flood.slice(0, 100)]) {
        const claimed = byEmail.get(String(id))?.claimed;
        expect(claimed?.outcome, String(id)).toBe("send");
        if (claimed?.outcome === "send")
          expect(claimed.email).toMatchObject({ id, status: "sending", attempts: 1 });
      }
      // Claimed in the same statement: sending, with its timeline event; the keyed one's email untouched.
      expect(await statusOf(client, [String(early), String(quiet), ...flood.slice(0, 100)])).toEqual({
        sending: 102,
      });
      expect(await statusOf(client, [String(due)])).toEqual({ scheduled: 1 });
      const events = await client.query<{ n: number }>(
        "select count(*)::int as n from email_events where type = 'sending' and email_id = any($1::uuid[])",
        [[early, quiet]],
      );
      expect(events.rows[0]?.n).toBe(2);
      // Locked as graphile-worker's fetch locks a job; the flood's jobs beyond the share are left alone.
      const jobs = await jobsOf(client);
      for (const t of taken) {
        expect(jobs.get(t.payload.emailId)).toMatchObject({ locked_by: "reserved-1", attempts: 1 });
        expect(t.job.attempts).toBe(1);
      }
      for (const id of flood.slice(100)) expect(jobs.get(id)).toMatchObject({ locked_by: null, attempts: 0 });
      expect(await takeReservedDeliveries(client, "reserved-1", 500)).toEqual([]);
    });
  });

  it("takes by priority, at most the slots asked for, and skips a job another transaction holds", async () => {
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      await beatReserved(client, "reserved-1");
      const ids = await accept(client, "quiet", 4);
      // Priorities 5, 1, 3, 2 in the order accepted.
      await client.query(
        `update graphile_worker._private_jobs j set priority = p.priority
         from unnest($1::text[], $2::int[]) as p(id, priority) where j.payload->>'emailId' = p.id`,
        [ids, [5, 1, 3, 2]],
      );
    });
    const other = await db.pool.connect();
    try {
      await other.query("begin");
      // A fetch in flight elsewhere holds the job of priority 2.
      await other.query("select 1 from graphile_worker._private_jobs where priority = 2 for update");
      const first = await takeReservedDeliveries(db.pool, "reserved-1", 2);
      expect(first.map((t) => t.job.attempts)).toEqual([1, 1]);
      const priorities = await db.pool.query<{ priority: number }>(
        "select priority from graphile_worker._private_jobs where locked_by = 'reserved-1' order by priority",
      );
      expect(priorities.rows.map((r) => r.priority)).toEqual([1, 3]);
      await other.query("rollback");
    } finally {
      other.release();
    }
    const rest = await takeReservedDeliveries(db.pool, "reserved-1", 5);
    expect(rest).toHaveLength(2);
    const all = await db.pool.query<{ priority: number }>(
      "select priority from graphile_worker._private_jobs where locked_by = 'reserved-1' order by priority",
    );
    expect(all.rows.map((r) => r.priority)).toEqual([1, 2, 3, 5]);
  });

  it("answers a canceled email's job with the claim's skip, and completes or fails jobs as graphile-worker does", async () => {
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      await beatReserved(client, "reserved-1");
    });
    const [canceled, sent, broken] = await withTransaction(db.pool, (client) => accept(client, "flood", 3));
    await cancelEmail(db.pool, "flood", String(canceled));
    const taken = await takeReservedDeliveries(db.pool, "worker-a", 5);
    const byEmail = new Map(taken.map((t) => [t.payload.emailId, t]));
    expect(byEmail.get(String(canceled))?.claimed).toEqual({ outcome: "skip", status: "canceled" });
    expect(byEmail.get(String(sent))?.claimed?.outcome).toBe("send");
    await completeTakenJobs(db.pool, [
      byEmail.get(String(canceled))?.job.id ?? "",
      byEmail.get(String(sent))?.job.id ?? "",
    ]);
    // Another worker's id fails nothing of worker-a's.
    const brokenJob = byEmail.get(String(broken))?.job.id ?? "";
    await failTakenJob(db.pool, "worker-b", brokenJob, "boom");
    await withTransaction(db.pool, async (client) => {
      expect((await jobsOf(client)).get(String(broken))).toMatchObject({
        locked_by: "worker-a",
        last_error: null,
      });
    });
    await failTakenJob(db.pool, "worker-a", brokenJob, "boom");
    await withTransaction(db.pool, async (client) => {
      const jobs = await jobsOf(client);
      expect([...jobs.keys()]).toEqual([broken]);
      // Unlocked, its error kept, run again after graphile-worker's backoff (e^1 s after its first attempt).
      expect(jobs.get(String(broken))).toMatchObject({
        locked_by: null,
        attempts: 1,
        last_error: "boom",
        later: true,
      });
    });
    expect(await takeReservedDeliveries(db.pool, "worker-a", 5)).toEqual([]);
  });
});
