import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptFlood, acceptItem } from "../support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// Issue 31 item 3: a tenant with a large backlog does not delay another tenant's single email. The
// backlog is accepted through the accept statement (core's acceptEmails, as the API's group commit calls
// it), the quiet tenant's email through POST /v1/send, all before a worker starts; then what matters is
// the order a real SMTP server receives them in, never how long anything took.
const BACKLOG = 2_000;
const FLOOD_FROM = "bulk@flood.test";
const QUIET_FROM = "alerts@quiet.test";

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>> | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await db?.drop();
});

describe("fair delivery across accounts", () => {
  it("delivers a quiet account's one email before another account's queued backlog drains", async () => {
    const flood = await createKey(db.pool, { account: "flood", scopes: ["send"], expires: "never" });
    for (let sent = 0; sent < BACKLOG; sent += 100) {
      const items = Array.from({ length: 100 }, (_, n) =>
        acceptItem("flood", flood.key.keyId, {
          draft: { from: FLOOD_FROM, fromAddress: FLOOD_FROM, to: [`r${sent + n}@example.test`] },
        }),
      );
      const accepted = await acceptEmails(db.pool, { hostname: "flood.test" }, items);
      expect(accepted.every((r) => r.status === "queued")).toBe(true);
    }
    const quiet = await createKey(db.pool, { account: "quiet", scopes: ["send"], expires: "never" });
    const sent = await api.request("POST", "/v1/send", {
      key: quiet.fullKey,
      body: { from: QUIET_FROM, to: ["oncall@example.test"], subject: "Disk full", text: "Now." },
    });
    expect(sent.status, sent.text).toBe(200);

    worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
    const received = await sink.waitFor(BACKLOG + 1, 120_000);
    const froms = received.map((m) => m.envelope.from);
    const position = froms.indexOf(QUIET_FROM);
    // In arrival order the quiet email was behind all 2,000. Now it leaves within the first slots' worth
    // (4 running, 4 fetched ahead, the flood's first job): far ahead of the end of the backlog.
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThan(50);

    // Nothing lost, nothing sent twice: every accepted email delivered once.
    expect(froms.filter((f) => f === FLOOD_FROM)).toHaveLength(BACKLOG);
    expect(new Set(received.map((m) => m.parsed.messageId)).size).toBe(BACKLOG + 1);
    // The record follows the receiver's 250: wait for the last ones.
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
    expect(statuses).toEqual([{ status: "delivered", n: String(BACKLOG + 1) }]);
  }, 180_000);

  // ADR 0064: priority orders what waits, but a job added while every delivery slot is busy with a flood's
  // (a slow receiver, or simply a saturated worker) waits for one of them to end. The reserved lane's slot
  // runs only mail added within its account's fair share: here it delivers the quiet email while the
  // delivery lane's two slots are stuck on the flood's held messages, and never takes one of the flood's
  // jobs beyond its share (had it, it would be stuck too and the quiet email would wait).
  it("delivers a quiet account's email in the reserved lane while a flood holds every delivery slot", async () => {
    await worker?.stop();
    worker = undefined;
    const FLOOD = 1_000;
    const slow = await startSmtpSink();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The receiver is slow for the flood's mail beyond its first 100 (those beyond its fair share).
    const held = new Set<string>();
    slow.hold = ({ from, to }) => {
      const n = Number(/^h(\d+)@/.exec(to[0] ?? "")?.[1] ?? -1);
      if (from !== FLOOD_FROM || n < 100) return undefined;
      held.add(to[0] ?? "");
      return gate;
    };
    try {
      // One statement: its jobs' turns are exact, 0…999, and those from the 100th on carry the flag.
      const accepted = await acceptFlood(
        db.pool,
        "held-flood",
        FLOOD,
        FLOOD_FROM,
        (n) => `h${n}@example.test`,
      );
      expect(accepted.every((r) => r.status === "queued")).toBe(true);
      // Polls a minute apart: the reserved lane finds the quiet email because its insert was announced to it.
      worker = await startWorkerStack(
        db,
        slow.url,
        { MAILROOM_WORKER_CONCURRENCY: "2", MAILROOM_WORKER_RESERVED_CONCURRENCY: "1" },
        { pollIntervalMs: 60_000 },
      );
      // The flood's first 100 pass; then both delivery slots hold one of its messages each.
      await slow.waitFor(100, 60_000);
      expect(
        await until(
          async () => held.size,
          (n) => n === 2,
          30_000,
        ),
      ).toBe(2);

      const quiet = await createKey(db.pool, { account: "held-quiet", scopes: ["send"], expires: "never" });
      const sent = await api.request("POST", "/v1/send", {
        key: quiet.fullKey,
        body: { from: QUIET_FROM, to: ["pager@example.test"], subject: "Paged", text: "Now." },
      });
      expect(sent.status, sent.text).toBe(200);
      const received = await slow.waitFor(101, 60_000);
      expect(received.map((m) => m.envelope.from).slice(100)).toEqual([QUIET_FROM]);
      // Still held by the delivery lane's two slots only: the reserved one took none of the flood's.
      expect(held.size).toBe(2);

      release();
      const all = await slow.waitFor(FLOOD + 1, 120_000);
      expect(new Set(all.map((m) => m.parsed.messageId)).size).toBe(FLOOD + 1);
      const statuses = await until(
        async () =>
          (
            await db.pool.query<{ status: string; n: string }>(
              `select status, count(*) as n from emails where account in ('held-flood', 'held-quiet')
               group by status`,
            )
          ).rows,
        (rows) => rows.length === 1 && rows[0]?.status === "delivered",
        30_000,
      );
      expect(statuses).toEqual([{ status: "delivered", n: String(FLOOD + 1) }]);
    } finally {
      release();
      await worker?.stop();
      worker = undefined;
      await slow.close();
    }
  }, 240_000);
});
