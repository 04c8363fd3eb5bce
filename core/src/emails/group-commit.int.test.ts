import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import type { AcceptRequest } from "./accept.ts";
import { createAcceptQueue } from "./group-commit.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("gc", (setup) => {
  ({ db, keyId } = setup);
});

const item = (subject: string, idempotencyKey?: string): AcceptRequest =>
  acceptItem("gc", keyId, { idempotencyKey, draft: { subject } });

describe("group commit", () => {
  it("shares transactions under load and answers each caller after its commit", async () => {
    // One slot: while the first transaction runs, the rest gather for the next one.
    const queue = createAcceptQueue(db.pool, { hostname: "test", concurrency: 1, maxBatch: 100 });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => queue.accept(item(`s${i}`))));
    expect(new Set(results.map((r) => r.messageId)).size).toBe(50);
    const { rows } = await db.pool.query<{ tx: string; n: number }>(
      "select xmin::text as tx, count(*)::int as n from emails where subject like 's%' group by xmin",
    );
    expect(rows.length).toBeLessThan(50);
    expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(50);
  });

  it("isolates an item the database refuses from the others in its transaction", async () => {
    const queue = createAcceptQueue(db.pool, { hostname: "test", concurrency: 1, maxBatch: 100 });
    // Core trusts its callers' validation; a NUL byte is something Postgres itself refuses to store.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => queue.accept(item(i === 7 ? "bad\u0000" : `ok${i}`))),
    );
    expect(outcomes.filter((o) => o.status === "rejected")).toHaveLength(1);
    expect(outcomes[7]?.status).toBe("rejected");
    const { rows } = await db.pool.query<{ n: number }>(
      "select count(*)::int as n from emails where subject like 'ok%'",
    );
    expect(rows[0]?.n).toBe(19);
  });
});
