import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptFlood, acceptItem } from "../support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// ADR 0064's amendment: the reserved lane may run in a worker process of its own (MAILROOM_WORKER_LANES), as
// the chart deploys it, and the main worker then runs without it. The reserved process takes only mail added
// within its account's fair share and nothing else (no flood job, no periodic job); the main worker, without
// the reserved lane, still delivers every email, within its share or not: the reserved lane only ever
// accelerates. Real Postgres, a real SMTP sink; nothing here depends on how long anything takes.
const FLOOD = 1_000;
const FLOOD_FROM = "bulk@flood.test";
const QUIET_FROM = "alerts@quiet.test";

let db: TestDatabase;
let sink: SmtpSink;
const workers: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await sink?.close();
  await db?.drop();
});

/** The `deliver` jobs still waiting, by whether they carry the flag, and how many were ever fetched. */
async function waitingJobs() {
  const { rows } = await db.pool.query<{ flagged: boolean; n: string; fetched: string; locked: string }>(
    `select coalesce(j.flags ? 'over_fair_share', false) as flagged, count(*) as n,
            count(*) filter (where j.attempts > 0) as fetched, count(j.locked_by) as locked
     from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = 'deliver' group by 1 order by 1`,
  );
  return rows.map((r) => ({
    flagged: r.flagged,
    n: Number(r.n),
    fetched: Number(r.fetched),
    locked: Number(r.locked),
  }));
}

async function sendQuiet(account: string, to: string) {
  const key = await createKey(db.pool, { account, scopes: ["send"], expires: "never" });
  const [accepted] = await acceptEmails(db.pool, { hostname: "quiet.test" }, [
    acceptItem(account, key.key.keyId, { draft: { from: QUIET_FROM, fromAddress: QUIET_FROM, to: [to] } }),
  ]);
  expect(accepted?.status).toBe("queued");
}

describe("the reserved lane in a worker process of its own", () => {
  it("takes only mail within its share; the main worker without it delivers everything", async () => {
    // One statement: its jobs' turns are exact, 0…999, and those from the 100th on carry the flag.
    const accepted = await acceptFlood(db.pool, "flood", FLOOD, FLOOD_FROM, (n) => `f${n}@example.test`);
    expect(accepted.every((r) => r.status === "queued")).toBe(true);
    await sendQuiet("quiet", "oncall@example.test");

    // Only the reserved lane, as the chart's `<release>-worker-reserved` runs it.
    const reserved = await startWorkerStack(db, sink.url, {
      MAILROOM_WORKER_LANES: "reserved",
      MAILROOM_WORKER_RESERVED_CONCURRENCY: "2",
    });
    workers.push(reserved);
    expect(reserved.isRunning()).toBe(true);
    // The flood's first 100 (within its share) and the quiet email.
    const first = await sink.waitFor(101, 60_000);
    expect(first.filter((m) => m.envelope.from === QUIET_FROM)).toHaveLength(1);
    // Its heartbeat vouches for its runner, so another process would not take its jobs for a dead one's.
    const beats = await until(
      async () => Number((await db.pool.query("select count(*) as n from worker_heartbeats")).rows[0]?.n),
      (n) => n > 0,
      30_000,
    );
    expect(beats).toBeGreaterThan(0);
    // A graceful stop: whatever it holds finishes. Then the flood's 900 beyond its share wait, none ever
    // fetched (a fetched job's attempts count it): the reserved process never touched one.
    await reserved.stop();
    workers.splice(workers.indexOf(reserved), 1);
    expect(sink.messages).toHaveLength(101);
    expect(await waitingJobs()).toEqual([{ flagged: true, n: FLOOD - 100, fetched: 0, locked: 0 }]);
    // Nor did it start a periodic job's schedule: that is the background lane's (graphile-worker records the
    // crontab it runs in known_crontabs).
    const crontabs = await db.pool.query("select * from graphile_worker._private_known_crontabs");
    expect(crontabs.rows).toEqual([]);

    // The main worker without the reserved lane: the flood's waiting 900 and a new quiet email, within its
    // share (so without the flag), all delivered, none twice.
    await sendQuiet("quiet-again", "pager@example.test");
    expect(await waitingJobs()).toEqual([
      { flagged: false, n: 1, fetched: 0, locked: 0 },
      { flagged: true, n: FLOOD - 100, fetched: 0, locked: 0 },
    ]);
    const main = await startWorkerStack(db, sink.url, {
      MAILROOM_WORKER_LANES: "delivery,background",
      MAILROOM_WORKER_CONCURRENCY: "4",
    });
    workers.push(main);
    const all = await sink.waitFor(FLOOD + 2, 120_000);
    expect(new Set(all.map((m) => m.parsed.messageId)).size).toBe(FLOOD + 2);
    expect(all.filter((m) => m.envelope.from === QUIET_FROM)).toHaveLength(2);
    const statuses = await until(
      async () =>
        (
          await db.pool.query<{ status: string; n: string }>(
            "select status, count(*) as n from emails group by status",
          )
        ).rows,
      (rows) => rows.length === 1 && rows[0]?.status === "delivered",
      30_000,
    );
    expect(statuses).toEqual([{ status: "delivered", n: String(FLOOD + 2) }]);
    // The last jobs' completions are batched: they leave the queue a moment after their emails read delivered.
    expect(await until(waitingJobs, (rows) => rows.length === 0, 30_000)).toEqual([]);
  }, 240_000);
});
