import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { createKey } from "../keys/index.ts";
import { addSuppressions } from "../suppressions/index.ts";
import { acceptEmails } from "./accept.ts";
import { claimEmails, createDeliveryStore, recordAttempts } from "./delivery.ts";
import { listEvents } from "./events.ts";
import { cancelEmail, rescheduleEmail } from "./log.ts";
import type { EmailDraft } from "./types.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("dl", (setup) => {
  ({ db, keyId } = setup);
});

const accept = async (draft: Partial<EmailDraft> = {}, key = keyId) => {
  const [result] = await acceptEmails(db.pool, { hostname: "test" }, [acceptItem("dl", key, { draft })]);
  return String(result?.messageId);
};
const policy = { baseDelaySeconds: 60, maxDelaySeconds: 3600, horizonSeconds: 86_400 };

describe("claim and record (one round trip each)", () => {
  it("claims a queued email once, with its recipients bare, lower-cased and deduplicated", async () => {
    const id = await accept({ to: ["Ann <Ann@Example.test>", "bob@example.test"], cc: ["ann@example.test"] });
    const claimed = await createDeliveryStore(db.pool).claim(id);
    expect(claimed).toMatchObject({ outcome: "send", recipients: ["ann@example.test", "bob@example.test"] });
    if (claimed.outcome !== "send") return;
    expect(claimed.email).toMatchObject({ id, status: "sending", attempts: 1 });
    expect(claimed.hasAttachments).toBe(false);
    const result = await createDeliveryStore(db.pool).record({
      claimed,
      outcomes: [
        { recipient: "ann@example.test", status: "accepted", code: 250, response: "250 ok" },
        { recipient: "bob@example.test", status: "accepted", code: 250, response: "250 ok" },
      ],
      policy,
    });
    expect(result.status).toBe("delivered");
    expect(await createDeliveryStore(db.pool).claim(id)).toEqual({ outcome: "skip", status: "delivered" });
    expect((await listEvents(db.pool, id)).map((e) => e.type)).toEqual(["queued", "sending", "delivered"]);
  });

  it("leaves a queued email alone once it was canceled, or rescheduled to later, before its job ran", async () => {
    const canceled = await accept();
    await cancelEmail(db.pool, "dl", canceled);
    expect(await createDeliveryStore(db.pool).claim(canceled)).toEqual({
      outcome: "skip",
      status: "canceled",
    });
    const moved = await accept();
    await rescheduleEmail(db.pool, "dl", moved, new Date(Date.now() + 3_600_000));
    expect(await createDeliveryStore(db.pool).claim(moved)).toEqual({
      outcome: "skip",
      status: "rescheduled",
    });
  });

  it("fails the email of a revoked key, and one whose every recipient is suppressed", async () => {
    const other = (await createKey(db.pool, { account: "dl", scopes: ["send"], expires: "never" })).key;
    const id = await accept({}, other.keyId);
    // Revocation fails unsent mail itself; a job already past that point still meets the claim's check.
    await db.pool.query("update api_keys set revoked_at = now() where key_id = $1", [other.keyId]);
    expect(await createDeliveryStore(db.pool).claim(id)).toEqual({
      outcome: "failed",
      reason: "api_key_revoked",
    });

    await addSuppressions(db.pool, "dl", [{ address: "gone@example.test", reason: "hard_bounce" }]);
    const blocked = await accept({ to: ["Gone@Example.test"] });
    expect(await createDeliveryStore(db.pool).claim(blocked)).toEqual({
      outcome: "failed",
      reason: "suppressed",
    });
    const partly = await accept({ to: ["gone@example.test", "ok@example.test"] });
    expect(await createDeliveryStore(db.pool).claim(partly)).toMatchObject({
      recipients: ["ok@example.test"],
    });
    const sending = (await listEvents(db.pool, partly)).find((e) => e.type === "sending");
    // Why and since when, as the log shows it.
    expect(sending?.detail).toEqual({
      attempt: 1,
      suppressed: ["gone@example.test"],
      suppressions: [{ address: "gone@example.test", reason: "hard_bounce", since: expect.any(String) }],
    });
  });

  it("defers a temporary failure with a keyed retry job and suppresses a hard bounce", async () => {
    const id = await accept({ to: ["later@example.test", "never@example.test"] });
    const claimed = await createDeliveryStore(db.pool).claim(id);
    if (claimed.outcome !== "send") throw new Error(`not claimed: ${JSON.stringify(claimed)}`);
    const result = await createDeliveryStore(db.pool).record({
      claimed,
      outcomes: [
        { recipient: "later@example.test", status: "temporary", code: 451, response: "451 later" },
        { recipient: "never@example.test", status: "permanent", code: 550, response: "550 no such user" },
      ],
      policy,
    });
    expect(result.status).toBe("deferred");
    const { rows: jobs } = await db.pool.query(
      "select run_at from graphile_worker._private_jobs where key = $1",
      [`deliver:${id}`],
    );
    expect(jobs).toHaveLength(1);
    const { rows: suppressed } = await db.pool.query(
      "select address, reason from suppressions where account = 'dl' and source_email_id = $1",
      [id],
    );
    expect(suppressed).toEqual([{ address: "never@example.test", reason: "hard_bounce" }]);
    const retry = await createDeliveryStore(db.pool).claim(id);
    expect(retry).toMatchObject({ outcome: "send", recipients: ["later@example.test"] });
  });

  it("claims and records many emails in one statement each, answering every caller in its own order", async () => {
    const ids = [await accept(), await accept(), await accept()];
    await cancelEmail(db.pool, "dl", ids[1] as string);
    // Reversed: results follow the request order, not the lock order (ids ascending).
    const claimed = await claimEmails(
      db.pool,
      [...ids].reverse().map((emailId) => ({ emailId })),
    );
    expect(claimed.map((c) => c.outcome)).toEqual(["send", "skip", "send"]);
    const sendable = claimed.flatMap((c) => (c.outcome === "send" ? [c] : []));
    expect(sendable.map((c) => c.email.id)).toEqual([ids[2], ids[0]]);
    const results = await recordAttempts(
      db.pool,
      sendable.map((c, i) => ({
        claimed: c,
        outcomes: [
          {
            recipient: "b@example.test",
            status: i === 0 ? ("accepted" as const) : ("permanent" as const),
            response: i === 0 ? "250 ok" : "550 gone",
          },
        ],
        policy,
      })),
    );
    expect(results.map((r) => r.status)).toEqual(["delivered", "bounced"]);
    const { rows } = await db.pool.query(
      "select id, status from emails where id = any($1::uuid[]) order by id",
      [ids],
    );
    expect(rows.map((r) => r.status)).toEqual(["bounced", "canceled", "delivered"]);
  });

  it("decides every kind of claim in one call: send, skip, missing, revoked, suppressed, and a repeat once", async () => {
    const other = (await createKey(db.pool, { account: "dl", scopes: ["send"], expires: "never" })).key;
    const revoked = await accept({}, other.keyId);
    await db.pool.query("update api_keys set revoked_at = now() where key_id = $1", [other.keyId]);
    await addSuppressions(db.pool, "dl", [{ address: "blocked@example.test", reason: "complaint" }]);
    const suppressed = await accept({ to: ["blocked@example.test"] });
    const canceled = await accept();
    await cancelEmail(db.pool, "dl", canceled);
    const sendable = await accept({ to: ["x@example.test"] });
    const missing = "00000000-0000-4000-8000-000000000000";
    const claimed = await claimEmails(
      db.pool,
      [sendable, revoked, missing, suppressed, canceled, sendable].map((emailId) => ({ emailId })),
    );
    expect(claimed.map((c) => (c.outcome === "send" ? { outcome: "send", id: c.email.id } : c))).toEqual([
      { outcome: "send", id: sendable },
      { outcome: "failed", reason: "api_key_revoked" },
      { outcome: "skip", status: "missing" },
      { outcome: "failed", reason: "suppressed" },
      { outcome: "skip", status: "canceled" },
      // Asked for twice in one call: claimed once, the repeat finds it taken.
      { outcome: "skip", status: "sending" },
    ]);
    const { rows } = await db.pool.query<{
      id: string;
      status: string;
      failure_reason: string | null;
      attempts: number;
    }>("select id, status, failure_reason, attempts from emails where id = any($1::uuid[])", [
      [sendable, revoked, suppressed, canceled],
    ]);
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.failure_reason, r.attempts]]))).toEqual({
      [sendable]: ["sending", null, 1],
      [revoked]: ["failed", "api_key_revoked", 0],
      [suppressed]: ["failed", "suppressed", 0],
      [canceled]: ["canceled", null, 0],
    });
    const types = async (id: string) => (await listEvents(db.pool, id)).map((e) => [e.type, e.detail]);
    expect(await types(sendable)).toEqual([
      ["queued", {}],
      ["sending", { attempt: 1 }],
    ]);
    expect(await types(revoked)).toEqual([
      ["queued", {}],
      ["failed", { reason: "api_key_revoked" }],
    ]);
    expect(await types(suppressed)).toEqual([
      ["queued", {}],
      [
        "failed",
        {
          reason: "suppressed",
          suppressions: [{ address: "blocked@example.test", reason: "complaint", since: expect.any(String) }],
        },
      ],
    ]);
  });

  it("records several outcomes in one call: bounces of one address from two emails, a retry, a delivery", async () => {
    const to = ["twice@example.test"];
    const ids = [await accept({ to }), await accept({ to }), await accept({ to })];
    const claimed = (
      await claimEmails(
        db.pool,
        ids.map((emailId) => ({ emailId })),
      )
    ).flatMap((c) => (c.outcome === "send" ? [c] : []));
    const outcome = (status: "accepted" | "temporary" | "permanent", response: string) => [
      { recipient: "twice@example.test", status, response },
    ];
    const results = await recordAttempts(db.pool, [
      {
        claimed: claimed[2] as (typeof claimed)[number],
        outcomes: outcome("permanent", "550 third"),
        policy,
      },
      {
        claimed: claimed[0] as (typeof claimed)[number],
        outcomes: outcome("permanent", "550 first"),
        policy,
      },
      {
        claimed: claimed[1] as (typeof claimed)[number],
        outcomes: outcome("temporary", "451 later"),
        policy,
      },
    ]);
    expect(results.map((r) => r.status)).toEqual(["bounced", "bounced", "deferred"]);
    const [first, second, third] = ids.toSorted();
    const { rows: suppressed } = await db.pool.query(
      "select source_email_id, detail from suppressions where account = 'dl' and address = 'twice@example.test'",
    );
    // The first bounce in id order is the entry's source, whichever order the attempts came in.
    expect(suppressed).toEqual([{ source_email_id: first, detail: "550 first" }]);
    const { rows: jobs } = await db.pool.query(
      "select key from graphile_worker._private_jobs where key like 'deliver:%' and key = any($1)",
      [ids.map((id) => `deliver:${id}`)],
    );
    expect(jobs).toEqual([{ key: `deliver:${second}` }]);
    expect((await listEvents(db.pool, third as string)).map((e) => [e.type, e.detail])).toEqual([
      ["queued", {}],
      ["sending", { attempt: 1 }],
      ["bounced", { response: "twice@example.test: 550 third", bounced: ["twice@example.test"] }],
    ]);
  });

  it("lets concurrent deliveries share claim statements through the delivery store", async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => accept({ to: [`c${i}@example.test`] })),
    );
    const store = createDeliveryStore(db.pool);
    const claimed = await Promise.all(ids.map((id) => store.claim(id)));
    expect(claimed.map((c) => (c.outcome === "send" ? c.email.id : c.outcome))).toEqual(ids);
    const { rows } = await db.pool.query(
      "select count(*)::int as n from email_events where email_id = any($1::uuid[]) and type = 'sending'",
      [ids],
    );
    expect(rows[0]?.n).toBe(12);
  });
});
