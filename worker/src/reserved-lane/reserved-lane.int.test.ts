import { createPool, type Pool, withTransaction } from "@mailroom/core/db";
import { acceptEmails, type Claimed } from "@mailroom/core/emails";
import type { DeliverPayload } from "@mailroom/core/jobs";
import { createLogger } from "@mailroom/core/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { beatReserved } from "../../../test/support/jobs.ts";
import { type AnswerCutProxy, startAnswerCutProxy } from "../../../test/support/pg-answer-cut.ts";
import { until } from "../../../test/support/wait.ts";
import type { Lane } from "../lane.ts";
import { startReservedLane } from "./index.ts";

// The reserved lane's own loop (ADR 0075) against real Postgres: woken by the enqueue's announcement (its poll
// set an hour out, so nothing else can wake it), each job delivered with the claim its take made, then
// completed, or failed as graphile-worker fails a job; stop waits for the deliveries under way.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("quiet", (setup) => {
  ({ db, keyId } = setup);
});

let lane: Lane | undefined;
afterEach(async () => {
  await lane?.stop();
  lane = undefined;
});

interface Call {
  payload: DeliverPayload;
  claim: Claimed | undefined;
}

/** A lane of `slots` whose delivery is `deliver` (records each call first), on `pool` (the test's unless given). */
async function start(
  slots: number,
  deliver: (call: Call) => Promise<void> = async () => {},
  options: { pool?: Pool; pollIntervalMs?: number } = {},
) {
  const calls: Call[] = [];
  lane = await startReservedLane({
    pool: options.pool ?? db.pool,
    logger: createLogger({ name: "test", level: "silent" }),
    slots,
    pollIntervalMs: options.pollIntervalMs ?? 3_600_000,
    delivery: async (payload, _logger, claim) => {
      calls.push({ payload, claim });
      await deliver({ payload, claim });
    },
  });
  // While it lives its id is a fresh reserved heartbeat, so jobs within the share are its own task.
  await beatReserved(db.pool, lane.lockIds()[0] ?? "", "1 hour");
  return calls;
}

const accept = async (n: number) =>
  withTransaction(db.pool, async (client) =>
    (
      await acceptEmails(
        client,
        { hostname: "test" },
        Array.from({ length: n }, () => acceptItem("quiet", keyId)),
      )
    ).map((r) => String(r.messageId)),
  );

const jobsLeft = async () =>
  (
    await db.pool.query<{ email_id: string; locked_by: string | null; last_error: string | null }>(
      "select payload->>'emailId' as email_id, locked_by, last_error from graphile_worker._private_jobs",
    )
  ).rows;

describe("the reserved lane's own loop", () => {
  it("wakes on the announcement, delivers each email with its claim and completes its job", async () => {
    await db.pool.query("delete from graphile_worker._private_jobs");
    const calls = await start(2);
    const ids = await accept(5);
    await until(jobsLeft, (left) => calls.length === 5 && left.length === 0, 10_000);
    expect(calls.map((c) => c.payload.emailId).sort()).toEqual([...ids].sort());
    for (const c of calls)
      expect(c.claim).toMatchObject({ outcome: "send", email: { id: c.payload.emailId } });
  });

  it("fails a job whose delivery threw, as graphile-worker does, and takes the next", async () => {
    await db.pool.query("delete from graphile_worker._private_jobs");
    const calls = await start(1, async ({ payload }) => {
      if (payload.emailId === broken) throw new Error("the transport blew up");
    });
    const [broken, next] = await accept(2);
    await until(jobsLeft, (left) => left[0]?.last_error != null && calls.length === 2, 10_000);
    expect(calls.map((c) => c.payload.emailId).sort()).toEqual([broken, next].sort());
    expect(await jobsLeft()).toEqual([
      { email_id: broken, locked_by: null, last_error: "the transport blew up" },
    ]);
  });

  it("stops only once the deliveries under way have ended and their jobs are completed", async () => {
    await db.pool.query("delete from graphile_worker._private_jobs");
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const calls = await start(2, () => held);
    await accept(1);
    await until(
      async () => calls.length,
      (n) => n === 1,
      10_000,
    );
    const current = lane;
    lane = undefined;
    let stopped = false;
    const stopping = current?.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    expect(await jobsLeft()).toHaveLength(1);
    release();
    await stopping;
    expect(await jobsLeft()).toEqual([]);
  });
});

describe("the reserved lane when the answer to its take is lost", () => {
  let proxy: AnswerCutProxy | undefined;
  let proxied: Pool | undefined;
  afterEach(async () => {
    await lane?.stop();
    lane = undefined;
    await proxied?.end();
    await proxy?.close();
  });

  // A take whose commit succeeded and whose answer never came (a failover cutting the connection just then, as
  // a Patroni switchover may): the job stays locked under the lane's live id and its email claimed. Before the
  // lane released what it does not hold, that job waited for graphile-worker's four-hour lock timeout.
  it("unlocks the jobs it took without knowing and delivers their emails once", async () => {
    await db.pool.query("delete from graphile_worker._private_jobs");
    proxy = await startAnswerCutProxy(db.url);
    proxied = createPool({ url: proxy.url, max: 4, applicationName: "mailroom-test-proxied" });
    const cut = proxy.cutNextAnswer("mailroom_take_reserved_deliveries");
    // The poll stays an hour out: after the cut only the lane's listening again wakes it.
    const calls = await start(2, async () => {}, { pool: proxied });
    const [id] = await accept(1);
    await cut;
    await until(jobsLeft, (left) => left.length === 0 && calls.length > 0, 15_000);
    expect(await jobsLeft()).toEqual([]);
    expect(calls.map((c) => c.payload.emailId)).toEqual([id]);
    expect(calls[0]?.claim).toMatchObject({ outcome: "send", email: { id } });
  });
});
