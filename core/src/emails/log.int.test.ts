import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { newId } from "../db/ids.ts";
import { acceptEmails } from "./accept.ts";
import { listEmails } from "./log.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("log", (setup) => {
  ({ db, keyId } = setup);
});

const minutes = (n: number) => n * 60_000;

describe("the email log's time range", () => {
  it("bounds UUIDv7 ids by time: the floor of a millisecond sorts before its ids and after earlier ones", async () => {
    const before = new Date();
    const id = newId();
    // The id's millisecond lies between the two readings of the clock, however long newId took.
    const after = new Date();
    const { rows } = await db.pool.query<{ at_floor: boolean; later_floor: boolean; clamped: string[] }>(
      `select $1::uuid >= mailroom_uuidv7_floor($2) as at_floor,
              $1::uuid < mailroom_uuidv7_floor($3::timestamptz + interval '1 ms') as later_floor,
              array[mailroom_uuidv7_floor('1900-01-01Z')::text, mailroom_uuidv7_floor('infinity')::text] as clamped`,
      [id, before, after],
    );
    expect(rows[0]).toEqual({
      at_floor: true,
      later_floor: true,
      clamped: ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-0000-0000-000000000000"],
    });
  });

  it("filters on created_at exactly, even when the id's clock was behind by minutes or ahead by seconds", async () => {
    const [a, b, c] = await acceptEmails(db.pool, { hostname: "test" }, [
      acceptItem("log", keyId),
      acceptItem("log", keyId),
      acceptItem("log", keyId),
    ]);
    const ids = [a, b, c].map((r) => r?.messageId as string);
    // As if the database's clock ran 4 minutes ahead of the pod that made the ids (or the accept's transaction
    // started that late), and then 50 s behind it: an id is ahead of its created_at only by the clocks'
    // difference, which the range allows a minute of (log.ts).
    await db.pool.query(`update emails set created_at = created_at + interval '4 minutes' where id = $1`, [
      ids[0],
    ]);
    await db.pool.query(`update emails set created_at = created_at - interval '50 seconds' where id = $1`, [
      ids[1],
    ]);
    const now = Date.now();
    const page = async (since: number, until: number) =>
      (await listEmails(db.pool, "log", { since: new Date(since), until: new Date(until), limit: 100 })).data
        .map((e) => e.id)
        .sort();
    expect(await page(now + minutes(3), now + minutes(5))).toEqual([ids[0]]);
    expect(await page(now - minutes(1.5), now - minutes(0.5))).toEqual([ids[1]]);
    expect(await page(now - minutes(0.5), now + minutes(1))).toEqual([ids[2]]);
    expect(await page(now - minutes(10), now + minutes(10))).toEqual([...ids].sort());
    expect(await page(now + minutes(10), now + minutes(20))).toEqual([]);
  });
});
