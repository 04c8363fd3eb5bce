import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { acceptEmails, createDeliveryStore } from "../emails/index.ts";
import { addSuppressions, getSuppression, suppressManually } from "./store.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("sw", (setup) => {
  ({ db, keyId } = setup);
});

const policy = { baseDelaySeconds: 60, maxDelaySeconds: 3600, horizonSeconds: 86_400 };

// mailroom_add_suppressions is the one writer of `suppressions` (issue 20): the store and the record of a
// delivery attempt both go through it, so both keep the first entry of an address and store it lower-cased.
describe("one writer of suppressions", () => {
  it("a hard bounce at delivery keeps an entry added meanwhile, and adds its own for a new address", async () => {
    const [accepted] = await acceptEmails(db.pool, { hostname: "test" }, [
      acceptItem("sw", keyId, { draft: { to: ["kept@example.test", "new@example.test"] } }),
    ]);
    const id = String(accepted?.messageId);
    const claimed = await createDeliveryStore(db.pool).claim(id);
    if (claimed.outcome !== "send") throw new Error(`not claimed: ${JSON.stringify(claimed)}`);
    // Suppressed by hand after the claim took the recipients and before the attempt is recorded.
    await suppressManually(db.pool, "sw", "Kept@Example.test", "by hand");
    await createDeliveryStore(db.pool).record({
      claimed,
      outcomes: [
        { recipient: "kept@example.test", status: "permanent", code: 550, response: "550 gone" },
        { recipient: "new@example.test", status: "permanent", code: 550, response: "550 no such user" },
      ],
      policy,
    });
    expect(await getSuppression(db.pool, "sw", "kept@example.test")).toMatchObject({
      address: "kept@example.test",
      reason: "manual",
    });
    const { rows } = await db.pool.query(
      "select address, reason, detail, source_email_id from suppressions where account = 'sw' order by address",
    );
    expect(rows).toEqual([
      { address: "kept@example.test", reason: "manual", detail: "by hand", source_email_id: null },
      { address: "new@example.test", reason: "hard_bounce", detail: "550 no such user", source_email_id: id },
    ]);
  });

  it("a report's suppression after a hard bounce is a no-op, and says which entry stands", async () => {
    await addSuppressions(db.pool, "sw", [{ address: "NEW@example.test", reason: "complaint" }]);
    expect(await getSuppression(db.pool, "sw", "new@example.test")).toMatchObject({ reason: "hard_bounce" });
    const again = await suppressManually(db.pool, "sw", "new@example.test", undefined);
    expect(again).toMatchObject({ created: false, suppression: { reason: "hard_bounce" } });
  });
});
