import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptItem } from "../support/accept-item.ts";
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
});
