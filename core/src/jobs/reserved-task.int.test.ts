import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { beatReserved, clearJobsAndClocks } from "../../../test/support/jobs.ts";
import { type PoolClient, withTransaction } from "../db/pool.ts";
import { acceptEmails } from "../emails/accept.ts";
import { rescueReservedDeliveries } from "./index.ts";

// The reserved lane's own task (ADR 0074): while a reserved lane's heartbeat is fresh, `mailroom_enqueue_deliver`
// adds an immediate send within its account's share as `deliver_reserved`; `mailroom_rescue_reserved_deliveries`
// turns those left waiting back into `deliver`. Each case runs in one transaction (now() stands still) on a
// clean slate: no job, no heartbeat, no account clock.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("flood", (setup) => {
  ({ db, keyId } = setup);
});

/** Accepts `n` emails of `account`; their jobs' tasks and flags, in order. */
async function accept(client: PoolClient, account: string, n: number, scheduledAt?: Date) {
  const items = Array.from({ length: n }, () =>
    acceptItem(account, keyId, scheduledAt ? { draft: { scheduledAt } } : {}),
  );
  const ids = (await acceptEmails(client, { hostname: "test" }, items)).map((r) => r.messageId);
  const { rows } = await client.query<{ id: string; task: string; flagged: boolean }>(
    `select j.payload->>'emailId' as id, t.identifier as task, coalesce(j.flags ? 'over_fair_share', false) as flagged
     from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where j.payload->>'emailId' = any($1::text[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.id, `${r.task}${r.flagged ? "+flag" : ""}`]));
  return ids.map((id) => byId.get(id));
}

function counts(tasks: (string | undefined)[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const t of tasks) c[t ?? "none"] = (c[t ?? "none"] ?? 0) + 1;
  return c;
}

describe("the reserved lane's own task", () => {
  it("is given to immediate sends within the share only while a reserved lane's heartbeat is fresh", async () => {
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      expect(counts(await accept(client, "flood", 3))).toEqual({ deliver: 3 });
      await beatReserved(client, "reserved-1", "-1 second");
      expect(counts(await accept(client, "quiet-stale", 1))).toEqual({ deliver: 1 });
    });
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      await beatReserved(client, "reserved-1", "10 seconds");
      // One statement: the first 100 turns within the share, the 50 beyond it flagged, as before.
      expect(counts(await accept(client, "flood", 150))).toEqual({
        deliver_reserved: 100,
        "deliver+flag": 50,
      });
      expect(await accept(client, "quiet", 1)).toEqual(["deliver_reserved"]);
      // A scheduled send is keyed (cancel and reschedule move it): it stays `deliver`.
      expect(await accept(client, "scheduled", 1, new Date(Date.now() + 3_600_000))).toEqual(["deliver"]);
    });
  });

  it("hands over only the reserved jobs that waited long enough and that no fetch holds", async () => {
    await withTransaction(db.pool, async (client) => {
      await clearJobsAndClocks(client);
      await beatReserved(client, "reserved-1", "10 seconds");
      await accept(client, "flood", 150);
      await accept(client, "quiet", 2);
      // Not yet waited a second (now() stands still in this transaction): nothing moves.
      expect(await rescueReservedDeliveries(client, 1_000)).toBe(0);
      // A fetch holds one of them: it is left to the lane that fetched it.
      await client.query(
        `update graphile_worker._private_jobs set locked_at = now(), locked_by = 'reserved-1'
         where id = (select j.id from graphile_worker._private_jobs j
                     join graphile_worker._private_tasks t on t.id = j.task_id
                     where t.identifier = 'deliver_reserved' order by j.priority limit 1)`,
      );
      expect(await rescueReservedDeliveries(client, 0)).toBe(101);
      const { rows } = await client.query<{ task: string; locked: boolean; n: number }>(
        `select t.identifier as task, j.locked_at is not null as locked, count(*)::int as n
         from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
         group by 1, 2 order by 1, 2`,
      );
      expect(rows).toEqual([
        { task: "deliver", locked: false, n: 151 },
        { task: "deliver_reserved", locked: true, n: 1 },
      ]);
      expect(await rescueReservedDeliveries(client, 0)).toBe(0);
    });
  });
});
