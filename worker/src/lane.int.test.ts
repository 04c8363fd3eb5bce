import { createPool, type Pool } from "@mailroom/core/db";
import { createLogger } from "@mailroom/core/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type AnswerCutProxy, startAnswerCutProxy } from "../../test/support/pg-answer-cut.ts";
import { until } from "../../test/support/wait.ts";
import { type Heartbeat, startHeartbeat } from "./heartbeat.ts";
import { type Lane, startLane } from "./lane.ts";

// A graphile-worker lane (startLane) whose fetch of jobs committed and whose answer was lost, on real Postgres
// behind a proxy that cuts that one answer (a failover cutting the connection between commit and reply, as a
// Patroni switchover may). graphile-worker logs the failed fetch and polls again; the jobs that fetch locked stay
// locked under its live pool id, which the heartbeat vouches for, so before the lane replaced such a runner they
// waited for graphile-worker's four-hour lock timeout.
let db: TestDatabase | undefined;
let proxy: AnswerCutProxy | undefined;
let proxied: Pool | undefined;
let lane: Lane | undefined;
let heartbeat: Heartbeat | undefined;
afterEach(async () => {
  await lane?.stop();
  await heartbeat?.stop(lane?.lockIds() ?? []);
  lane = undefined;
  await proxied?.end();
  await proxy?.close();
  await db?.drop();
});

const jobsLeft = async (pool: Pool) =>
  (
    await pool.query<{ id: string; locked_by: string | null }>(
      "select id, locked_by from graphile_worker._private_jobs order by id",
    )
  ).rows;

describe("a lane whose fetch of jobs lost its answer", () => {
  it("replaces its runner, unlocks what that fetch locked and runs each job once", async () => {
    db = await createTestDatabase();
    proxy = await startAnswerCutProxy(db.url);
    proxied = createPool({ url: proxy.url, max: 6, applicationName: "mailroom-test-proxied" });
    const logger = createLogger({ name: "test", level: "silent" });
    const ran: number[] = [];
    const pool = proxied;
    // The heartbeat as the worker wires it: the lane's live ids beaten, the ids it releases unlocked.
    const live: { lane?: Lane } = {};
    heartbeat = startHeartbeat(pool, logger, {
      intervalMs: 200,
      deadAfterMs: 60_000,
      liveIds: () => live.lane?.lockIds() ?? [],
    });
    const onDead = heartbeat.release;
    lane = await startLane(
      {
        name: "background",
        concurrency: 2,
        localQueueSize: 2,
        taskList: {
          test_task: async (payload) => {
            ran.push((payload as { n: number }).n);
          },
        },
      },
      { pool, logger, pollIntervalMs: 200 },
      onDead,
    );
    live.lane = lane;
    const idsBefore = lane.lockIds();
    // Fetches that find nothing pass the proxy; the first that locks a job is cut after its commit.
    const cut = proxy.cutNextAnswer("get_job");
    await db.pool.query(`select graphile_worker.add_job('test_task', '{"n": 1}'::json)`);
    await cut;
    await until(
      () => jobsLeft(db?.pool as Pool),
      (left) => left.length === 0,
      15_000,
    );
    expect(await jobsLeft(db.pool)).toEqual([]);
    expect(ran).toEqual([1]);
    // A new runner runs the lane now; the one whose answer was lost is gone, and so are its ids.
    expect(lane.isRunning()).toBe(true);
    expect(lane.lockIds().some((id) => idsBefore.includes(id))).toBe(false);
    await db.pool.query(`select graphile_worker.add_job('test_task', '{"n": 2}'::json)`);
    await until(
      async () => ran.length,
      (n) => n === 2,
      10_000,
    );
    expect(ran).toEqual([1, 2]);
  });
});
