import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { FUNCTIONS_DIR, sqlFiles } from "../db/migrate.ts";
import { withTransaction } from "../db/pool.ts";
import { acceptEmails } from "../emails/accept.ts";
import { createDeliveryStore, recordAttempts } from "../emails/delivery.ts";
import { rescheduleEmail } from "../emails/log.ts";
import { fanOutEvents } from "../webhooks/dispatch.ts";
import { emitEvents } from "../webhooks/outbox.ts";
import { createSsrfGuard } from "../webhooks/ssrf.ts";
import { createEndpoint } from "../webhooks/store.ts";
import {
  deliverJobKey,
  enqueueDeliver,
  enqueueProcessReport,
  enqueueStreamWakeups,
  jobPayload,
  type TaskName,
} from "./index.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("jobs", (setup) => {
  ({ db, keyId } = setup);
});

interface JobRow {
  payload: unknown;
  key: string | null;
}

/** The jobs of one task that mention `needle` in their payload, oldest first. */
async function jobs(task: TaskName, needle: string): Promise<JobRow[]> {
  const { rows } = await db.pool.query<JobRow>(
    `select j.payload, j.key from graphile_worker._private_jobs j
     join graphile_worker._private_tasks t on t.id = j.task_id
     where t.identifier = $1 and j.payload::text like '%' || $2 || '%' order by j.id`,
    [task, needle],
  );
  return rows;
}

const TRACE = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
const policy = { baseDelaySeconds: 60, maxDelaySeconds: 3600, horizonSeconds: 86_400 };

describe("one declaration and one SQL writer per task", () => {
  it("writes `deliver` jobs of one shape from accept, a deferred attempt, a reschedule and TypeScript", async () => {
    const [queued, scheduled] = await acceptEmails(db.pool, { hostname: "test" }, [
      { ...acceptItem("jobs", keyId), trace: TRACE },
      acceptItem("jobs", keyId, { draft: { scheduledAt: new Date(Date.now() + 3_600_000) } }),
    ]);
    const queuedId = String(queued?.messageId);
    const scheduledId = String(scheduled?.messageId);
    expect(await jobs("deliver", queuedId)).toEqual([
      { payload: jobPayload.deliver(queuedId, TRACE), key: null },
    ]);
    expect(await jobs("deliver", scheduledId)).toEqual([
      { payload: jobPayload.deliver(scheduledId), key: deliverJobKey(scheduledId) },
    ]);

    // A deferred attempt's retry carries the attempt's trace, under the email's key.
    const claimed = await createDeliveryStore(db.pool).claim(queuedId);
    if (claimed.outcome !== "send") throw new Error(`not claimed: ${JSON.stringify(claimed)}`);
    const attemptTrace = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01" };
    const [retry] = await recordAttempts(db.pool, [
      {
        claimed,
        outcomes: [{ recipient: "b@example.test", status: "temporary", code: 451, response: "451 later" }],
        policy,
        trace: attemptTrace,
      },
    ]);
    expect(retry?.status).toBe("deferred");
    expect(await jobs("deliver", queuedId)).toEqual([
      { payload: jobPayload.deliver(queuedId, TRACE), key: null },
      { payload: jobPayload.deliver(queuedId, attemptTrace), key: deliverJobKey(queuedId) },
    ]);

    // Reschedule and the TypeScript entry point replace the keyed job with the same shape.
    await rescheduleEmail(db.pool, "jobs", scheduledId, new Date(Date.now() + 7_200_000));
    expect(await jobs("deliver", scheduledId)).toEqual([
      { payload: jobPayload.deliver(scheduledId), key: deliverJobKey(scheduledId) },
    ]);
    await enqueueDeliver(db.pool, [{ emailId: scheduledId, trace: TRACE, keyed: true }]);
    expect(await jobs("deliver", scheduledId)).toEqual([
      { payload: jobPayload.deliver(scheduledId, TRACE), key: deliverJobKey(scheduledId) },
    ]);
  });

  it("writes `webhook_fanout`, `webhook_deliver` and `process_report` jobs of the declared shapes", async () => {
    const { endpoint } = await createEndpoint(
      db.pool,
      { account: "jobs", url: "http://127.0.0.1:9/hook" },
      { ssrf: createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] }) },
    );
    const ids = await withTransaction(db.pool, (client) =>
      emitEvents(client, [
        { account: "jobs", type: "email.bounced", data: { emailId: "shape-1" } },
        { account: "jobs", type: "email.bounced", data: { emailId: "shape-2" }, trace: TRACE },
      ]),
    );
    expect(ids).toHaveLength(2);
    expect(await jobs("webhook_fanout", String(ids[0]))).toEqual([
      { payload: jobPayload.webhookFanout(ids), key: null },
    ]);
    const { rows } = await db.pool.query(`select trace from webhook_events where id = any($1) order by seq`, [
      ids,
    ]);
    expect(rows).toEqual([{ trace: null }, { trace: TRACE }]);

    expect(await fanOutEvents(db.pool, ids)).toBe(2);
    expect(await jobs("webhook_deliver", endpoint.id)).toEqual([
      { payload: jobPayload.webhookDeliver(endpoint.id, ["email:shape-1", "email:shape-2"]), key: null },
    ]);
    await enqueueStreamWakeups(db.pool, [{ endpointId: endpoint.id, stream: "email:shape-2" }], new Date());
    expect((await jobs("webhook_deliver", endpoint.id)).at(-1)).toEqual({
      payload: jobPayload.webhookDeliver(endpoint.id, ["email:shape-2"]),
      key: `webhook:${endpoint.id}:email:shape-2`,
    });

    const reportId = "0190a4c2-7a8b-7c00-8000-000000000001";
    await enqueueProcessReport(db.pool, reportId);
    expect(await jobs("process_report", reportId)).toEqual([
      { payload: jobPayload.processReport(reportId), key: null },
    ]);
  });

  it("adds jobs only through the mailroom_enqueue_* functions", async () => {
    // SQL files may hold several functions (a state machine's, ADR 0003): each function is a writer on its
    // own; a TypeScript file is one.
    const writers: string[] = [];
    for (const file of await sqlFiles(FUNCTIONS_DIR)) {
      const text = await readFile(file, "utf8");
      for (const [, name, body] of text.matchAll(
        /create or replace function (\w+)([\s\S]*?)(?=create or replace function|$)/g,
      )) {
        if (/graphile_worker\.add_jobs?\(/.test(body as string)) writers.push(name as string);
      }
      const outside = text.replace(
        /create or replace function \w+[\s\S]*?(?=create or replace function|$)/g,
        "",
      );
      if (/graphile_worker\.add_jobs?\(/.test(outside)) writers.push(path.basename(file));
    }
    for (const file of await tsFiles(path.resolve(import.meta.dirname, ".."))) {
      if (/graphile_worker\.add_jobs?\(/.test(await readFile(file, "utf8")))
        writers.push(path.basename(file));
    }
    expect(writers.sort()).toEqual([
      "mailroom_enqueue_deliver",
      "mailroom_enqueue_process_report",
      "mailroom_enqueue_webhook_deliver",
      "mailroom_enqueue_webhook_fanout",
    ]);
  });
});

/** Every non-test TypeScript file under `dir`. */
async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.includes(".test."))
    .map((e) => path.join(e.parentPath, e.name));
}
