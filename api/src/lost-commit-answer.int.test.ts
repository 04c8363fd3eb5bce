import { createPool, type Pool } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type AnswerCutProxy, startAnswerCutProxy } from "../../test/support/pg-answer-cut.ts";
import { type ApiStack, startApiStack } from "../../test/support/stack.ts";

// A failover's worst moment for a send (issue 28, ADR 0033): the accept statement committed, and the
// connection died before its answer reached the API. The API cannot know it committed: it must answer 503
// (retryable), never 2xx nor 500, and the client's retry with the same idempotencyKey must find the commit.

let db: TestDatabase;
let cutter: AnswerCutProxy;
let pool: Pool;
let api: ApiStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  // Lets the accept statement commit, then drops its connection instead of its answer.
  cutter = await startAnswerCutProxy(db.url);
  pool = createPool({ url: cutter.url, max: 4, applicationName: "mailroom-lost-answer-test" });
  api = await startApiStack({ url: cutter.url, pool, drop: async () => {} });
  ({ fullKey: key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await api?.close();
  await pool?.end();
  await cutter?.close();
  await db?.drop();
});

it("answers 503 when the commit's answer is lost, and the retry with the same key answers duplicate", async () => {
  const body = {
    from: "Acme <hello@acme.test>",
    to: "you@example.test",
    subject: "Hi",
    text: "Hello",
    idempotencyKey: "lost-answer-1",
  };
  // The prepared accept statement is named in its Parse and in every Bind (core/src/emails/accept.ts).
  void cutter.cutNextAnswer("mailroom_accept");
  const first = await api.request("POST", "/v1/send", { key, body });
  expect(cutter.cuts()).toBe(1);
  expect(first.status, JSON.stringify(first.json)).toBe(503);
  expect(first.json.error).toBe("service_unavailable");
  expect(first.headers["retry-after"]).toBeDefined();

  // It had committed: the email is there, once, though nobody was told.
  const { rows } = await db.pool.query<{ id: string }>(
    "select e.id from idempotency_keys k join emails e on e.id = k.email_id where k.key = $1",
    [body.idempotencyKey],
  );
  expect(rows).toHaveLength(1);

  const retry = await api.request("POST", "/v1/send", { key, body });
  expect(retry.status).toBe(200);
  expect(retry.json).toEqual({ status: "duplicate", messageId: rows[0]?.id });
  // One delivery job for it: the retry enqueued nothing more.
  const jobs = await db.pool.query<{ n: number }>(
    "select count(*)::int as n from graphile_worker._private_jobs where payload->>'emailId' = $1",
    [rows[0]?.id],
  );
  expect(jobs.rows[0]?.n).toBe(1);
});
