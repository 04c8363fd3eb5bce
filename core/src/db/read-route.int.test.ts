import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { freePort } from "../../../test/support/ports.ts";
import { createPool, endPool, type Pool } from "./pool.ts";
import { createReadRouter, type ReadTarget } from "./read-route.ts";

// The replica side of the router against a real server. A streaming replica that lags is shown by the
// Patroni fault run (test/fault/patroni-failover.fault.test.ts); here: the fallbacks and what is rethrown.

let db: TestDatabase;
let away: Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  // Nothing listens there: a replica that is down.
  away = createPool({
    url: `postgres://mailroom:mailroom@127.0.0.1:${await freePort()}/mailroom`,
    max: 2,
    applicationName: "read-route-test",
  });
});
afterAll(async () => {
  await endPool(away);
  await db.drop();
});

const recorder = () => {
  const served: ReadTarget[] = [];
  return { served, onRead: (target: ReadTarget) => served.push(target) };
};

it("reads on a node that is not in recovery: it holds every commit", async () => {
  const { served, onRead } = recorder();
  const reads = createReadRouter({ primary: db.pool, replica: db.pool, onRead });
  const value = await reads.read(
    async (q) => (await q.query<{ n: number }>("select 41 + 1 as n")).rows[0]?.n,
  );
  expect(value).toBe(42);
  expect(served).toEqual(["replica"]);
});

it("reads on the primary when the replica is away, instead of failing", async () => {
  const { served, onRead } = recorder();
  const reads = createReadRouter({ primary: db.pool, replica: away, onRead });
  const value = await reads.read(async (q) => (await q.query<{ n: number }>("select 7 as n")).rows[0]?.n);
  expect(value).toBe(7);
  expect(served).toEqual(["primary"]);
});

it("rethrows what the read itself throws (a statement error is not a reason to try elsewhere)", async () => {
  const { served, onRead } = recorder();
  const reads = createReadRouter({ primary: db.pool, replica: db.pool, onRead });
  await expect(reads.read((q) => q.query("select * from no_such_table"))).rejects.toMatchObject({
    code: "42P01",
  });
  expect(served).toEqual([]);
});

it("reads on the primary with no replica configured", async () => {
  const { served, onRead } = recorder();
  const reads = createReadRouter({ primary: db.pool, onRead });
  await reads.read((q) => q.query("select 1"));
  expect(served).toEqual(["primary"]);
});
