import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptFlood, acceptItem } from "../support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// ADR 0074: while a reserved lane is alive, jobs within their account's share are its own task, which the
// delivery lane's runner (and so its local queue, whose prefetch ignores graphile-worker's flags) never
// fetches; what the reserved lane leaves, or cannot take because it is gone, the delivery lane gets after a
// wait. Each worker process relays to a sink of its own, so the sink an email reached tells which process's
// lane ran it. Real Postgres, real SMTP sinks; nothing here depends on how long anything takes.
const FLOOD = 300;
const WITHIN_SHARE = 100;
const FLOOD_FROM = "bulk@flood.test";
const QUIET_FROM = "alerts@quiet.test";
// Longer than any test here: the first worker's delivery lane hands itself nothing while the test runs.
const NEVER_MS = 10 * 60_000;

let db: TestDatabase;
let reservedSink: SmtpSink;
let deliverySink: SmtpSink;
const workers: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  reservedSink = await startSmtpSink();
  deliverySink = await startSmtpSink();
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await reservedSink?.close();
  await deliverySink?.close();
  await db?.drop();
});

async function sendQuiet(account: string, to: string) {
  const key = await createKey(db.pool, { account, scopes: ["send"], expires: "never" });
  const [accepted] = await acceptEmails(db.pool, { hostname: "quiet.test" }, [
    acceptItem(account, key.key.keyId, { draft: { from: QUIET_FROM, fromAddress: QUIET_FROM, to: [to] } }),
  ]);
  expect(accepted?.status).toBe("queued");
}

/** The task of the job waiting for the one email sent to `to`. */
async function taskOfJobTo(to: string): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ identifier: string }>(
    `select t.identifier from graphile_worker._private_jobs j
     join graphile_worker._private_tasks t on t.id = j.task_id
     join emails e on e.id = (j.payload->>'emailId')::uuid
     where $1 = any(e.to_addresses)`,
    [to],
  );
  return rows[0]?.identifier;
}

async function reservedAlive(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    "select count(*)::int as n from worker_heartbeats where reserved_until > now()",
  );
  return rows[0]?.n ?? 0;
}

describe("the reserved lane's own task", () => {
  it("while a reserved lane lives, the delivery lane runs none of the mail within its share", async () => {
    const reserved = await startWorkerStack(db, reservedSink.url, {
      MAILROOM_WORKER_LANES: "reserved",
      MAILROOM_WORKER_RESERVED_CONCURRENCY: "2",
      MAILROOM_WORKER_HEARTBEAT_SECONDS: "0.5",
    });
    workers.push(reserved);
    // A delivery lane whose local queue fetches four jobs at a time, lowest priority first: on today's main it
    // takes the flood's first 100 (priorities 0…99, within the share) and the quiet mail ahead of the rest.
    const delivery = await startWorkerStack(
      db,
      deliverySink.url,
      { MAILROOM_WORKER_LANES: "delivery,background", MAILROOM_WORKER_CONCURRENCY: "4" },
      { reservedRescueAfterMs: NEVER_MS },
    );
    workers.push(delivery);
    expect(await until(reservedAlive, (n) => n > 0, 30_000)).toBeGreaterThan(0);

    // One statement: its jobs' turns are exact, 0…299; from the 100th on they carry `over_fair_share`.
    const accepted = await acceptFlood(db.pool, "flood", FLOOD, FLOOD_FROM, (n) => `f${n}@example.test`);
    expect(accepted.every((r) => r.status === "queued")).toBe(true);
    for (let n = 0; n < 5; n++) await sendQuiet(`quiet-${n}`, `oncall${n}@example.test`);

    const byReserved = await reservedSink.waitFor(WITHIN_SHARE + 5, 120_000);
    const byDelivery = await deliverySink.waitFor(FLOOD - WITHIN_SHARE, 120_000);
    // Each email once, and each where its share put it: within it, the reserved lane's process; beyond it
    // (flagged), the delivery lane's.
    const to = (m: { envelope: { to: string[] } }) => m.envelope.to[0] ?? "";
    const within = new Set([
      ...Array.from({ length: WITHIN_SHARE }, (_, n) => `f${n}@example.test`),
      ...Array.from({ length: 5 }, (_, n) => `oncall${n}@example.test`),
    ]);
    expect(byReserved.map(to).sort()).toEqual([...within].sort());
    expect(byDelivery.every((m) => !within.has(to(m)))).toBe(true);
    expect(new Set(byDelivery.map(to)).size).toBe(FLOOD - WITHIN_SHARE);
    const statuses = await until(
      async () =>
        (
          await db.pool.query<{ status: string; n: number }>(
            "select status, count(*)::int as n from emails group by status",
          )
        ).rows,
      (rows) => rows.length === 1 && rows[0]?.status === "delivered",
      30_000,
    );
    expect(statuses).toEqual([{ status: "delivered", n: FLOOD + 5 }]);

    // A graceful stop of the reserved lane takes its heartbeat away: mail within its share is `deliver` again,
    // which the delivery lane runs at once (it never hands itself anything in this test).
    await reserved.stop();
    workers.splice(workers.indexOf(reserved), 1);
    expect(await reservedAlive()).toBe(0);
    await sendQuiet("quiet-after", "after@example.test");
    expect(await taskOfJobTo("after@example.test")).toBe("deliver");
    const after = await deliverySink.waitFor(FLOOD - WITHIN_SHARE + 1, 60_000);
    expect(after.filter((m) => to(m) === "after@example.test")).toHaveLength(1);
    expect(reservedSink.messages).toHaveLength(WITHIN_SHARE + 5);
  }, 240_000);

  it("a reserved lane that died with its heartbeat still fresh strands nothing: the delivery lane takes its mail", async () => {
    // What a reserved pod killed a moment ago leaves: its heartbeat, fresh for two more beats.
    await db.pool.query(
      `insert into worker_heartbeats (worker_id, beat_at, reserved_until)
       values ('killed-reserved-pod', now(), now() + interval '1 hour')`,
    );
    const before = deliverySink.messages.length;
    await sendQuiet("quiet-orphan", "orphan@example.test");
    expect(await taskOfJobTo("orphan@example.test")).toBe("deliver_reserved");
    // A worker without the reserved lane, which hands itself such a job once it has waited (the default wait).
    const main = await startWorkerStack(db, deliverySink.url, {
      MAILROOM_WORKER_LANES: "delivery,background",
      MAILROOM_WORKER_CONCURRENCY: "2",
    });
    workers.push(main);
    const delivered = await deliverySink.waitFor(before + 1, 60_000);
    expect(delivered.filter((m) => m.envelope.to[0] === "orphan@example.test")).toHaveLength(1);
    // The sink's 250 comes before the attempt's record.
    const status = await until(
      async () =>
        (
          await db.pool.query<{ status: string }>("select status from emails where $1 = any(to_addresses)", [
            "orphan@example.test",
          ])
        ).rows,
      (rows) => rows[0]?.status === "delivered",
      30_000,
    );
    expect(status).toEqual([{ status: "delivered" }]);

    // The same, heard: a worker whose periodic hand-over will not come within this test (its heartbeat, which
    // paces it, beats once a minute) hands over mail announced while it runs once it has waited.
    await main.stop();
    workers.splice(workers.indexOf(main), 1);
    const heard = await startWorkerStack(db, deliverySink.url, {
      MAILROOM_WORKER_LANES: "delivery,background",
      MAILROOM_WORKER_CONCURRENCY: "2",
      MAILROOM_WORKER_HEARTBEAT_SECONDS: "60",
      MAILROOM_WORKER_DEAD_AFTER_SECONDS: "600",
    });
    workers.push(heard);
    const beforeHeard = deliverySink.messages.length;
    // Added as `deliver_reserved` (the killed pod's row is still fresh, as above); not asserted here, since
    // this worker may already have handed it over by the time a query would look.
    await sendQuiet("quiet-heard", "heard@example.test");
    const heardMessages = await deliverySink.waitFor(beforeHeard + 1, 30_000);
    expect(heardMessages.filter((m) => m.envelope.to[0] === "heard@example.test")).toHaveLength(1);
  }, 120_000);
});
