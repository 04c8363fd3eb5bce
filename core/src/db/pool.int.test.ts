import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { createPool, endPool } from "./pool.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const sessionsOf = async (applicationName: string) =>
  (
    await db.pool.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where application_name = $1",
      [applicationName],
    )
  ).rows[0]?.n;

it("ends a pool only once its connections are closed, so a database stopped next finds none of them", async () => {
  for (let round = 0; round < 5; round++) {
    const applicationName = `end-${randomBytes(4).toString("hex")}`;
    const pool = createPool({ url: db.url, max: 8, applicationName });
    // Eight connections open at once, then idle in the pool.
    const clients = await Promise.all(Array.from({ length: 8 }, () => pool.connect()));
    for (const client of clients) client.release();
    expect(await sessionsOf(applicationName)).toBe(8);
    await endPool(pool);
    expect(await sessionsOf(applicationName), `round ${round}`).toBe(0);
  }
});
