import { applyAccountPolicy, pauseAccount } from "@mailroom/core/accounts";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

// Quotas are counted per second and per UTC day of this clock, which both replicas share.
let clock = new Date("2031-05-10T12:00:00.100Z");
let db: TestDatabase;
let replicaA: ApiStack;
let replicaB: ApiStack;

beforeAll(async () => {
  db = await createTestDatabase();
  replicaA = await startApiStack(db, { now: () => clock });
  replicaB = await startApiStack(db, { now: () => clock });
});
afterAll(async () => {
  await replicaA.close();
  await replicaB.close();
  await db.drop();
});

const email = (i: number, extra: Record<string, unknown> = {}) => ({
  from: "App <app@quota.test>",
  to: `user${i}@example.com`,
  subject: `hello ${i}`,
  text: "hi",
  ...extra,
});
const send = (api: ApiStack, key: string, body: unknown) => api.request("POST", "/v1/send", { key, body });
const emailsOf = async (account: string) =>
  Number((await db.pool.query("select count(*) from emails where account = $1", [account])).rows[0].count);

async function accountWithPolicy(account: string, settings: Parameters<typeof applyAccountPolicy>[3]) {
  const { fullKey } = await createKey(db.pool, { account, scopes: ["send"], expires: "never" });
  expect(await applyAccountPolicy(db.pool, account, `${account}/policy`, settings)).toBe(true);
  return fullKey;
}

describe("account quotas (issue 31 item 1)", () => {
  it("counts emails per second and per UTC day across two API replicas: 429 with Retry-After", async () => {
    clock = new Date("2031-05-10T12:00:00.100Z");
    const key = await accountWithPolicy("quota-a", { emailsPerSecond: 3, emailsPerDay: 5 });
    const first = [];
    for (let i = 0; i < 4; i++) first.push(await send(i % 2 ? replicaB : replicaA, key, email(i)));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(first[3]?.json.error).toBe("rate_limit_exceeded");
    expect(first[3]?.headers["retry-after"]).toBe("1");

    clock = new Date("2031-05-10T12:00:01.100Z");
    const second = [];
    for (let i = 4; i < 7; i++) second.push(await send(i % 2 ? replicaB : replicaA, key, email(i)));
    expect(second.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(second[2]?.json).toMatchObject({ error: "quota_exceeded" });
    expect(second[2]?.json.message).toMatch(/5 emails per UTC day.*resets at 2031-05-11T00:00:00.000Z/);
    // Until the day ends: 11 h 59 min 58.9 s, rounded up.
    expect(second[2]?.headers["retry-after"]).toBe(String(12 * 3600 - 1));
    expect(await emailsOf("quota-a")).toBe(5);

    const view = await replicaB.request("GET", "/v1/account", { key });
    expect(view.status).toBe(200);
    expect(view.json).toMatchObject({
      account: "quota-a",
      sendingStatus: "active",
      policy: "quota-a/policy",
      limits: { emailsPerSecond: 3, emailsPerDay: 5, batchSize: 100 },
      usage: { emailsToday: 5, dayResetsAt: "2031-05-11T00:00:00.000Z" },
    });

    clock = new Date("2031-05-11T00:00:00.500Z");
    expect((await send(replicaA, key, email(9))).status).toBe(200);
  });

  it("does not count a retry with the same idempotencyKey again: it is answered with the first send's result", async () => {
    clock = new Date("2031-05-12T12:00:00.100Z");
    const key = await accountWithPolicy("quota-retry", { emailsPerDay: 2 });
    const first = await send(replicaA, key, email(0, { idempotencyKey: "order-1" }));
    const retry = await send(replicaB, key, email(0, { idempotencyKey: "order-1" }));
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.json.messageId).toBe(first.json.messageId);
    const next = await send(replicaA, key, email(1, { idempotencyKey: "order-2" }));
    expect(next.status, next.text).toBe(200);
    const over = await send(replicaB, key, email(2, { idempotencyKey: "order-3" }));
    expect(over.json.error).toBe("quota_exceeded");
    expect(await emailsOf("quota-retry")).toBe(2);
  });

  it("lets exactly the day's quota through when both replicas take concurrent sends", async () => {
    clock = new Date("2031-05-10T13:00:00.100Z");
    const key = await accountWithPolicy("quota-b", { emailsPerDay: 7 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? replicaB : replicaA, key, email(i))),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(7);
    expect(answers.filter((r) => r.status === 429 && r.json.error === "quota_exceeded")).toHaveLength(13);
    expect(await emailsOf("quota-b")).toBe(7);
  });

  it("counts a batch's emails in its own transaction: a refused batch accepts none", async () => {
    clock = new Date("2031-05-10T14:00:00.100Z");
    const key = await accountWithPolicy("quota-c", { emailsPerDay: 4, batchSize: 3 });
    const batch = (n: number) =>
      replicaA.request("POST", "/v1/send/batch", {
        key,
        body: Array.from({ length: n }, (_, i) => email(i)),
      });
    expect((await batch(3)).status).toBe(200);
    const over = await batch(2);
    expect(over.status).toBe(429);
    expect(over.json.error).toBe("quota_exceeded");
    expect(await emailsOf("quota-c")).toBe(3);
    const tooBig = await batch(4);
    expect(tooBig.status).toBe(400);
    expect(tooBig.json.message).toMatch(/batch size of 3/);
  });

  it("refuses a category the policy does not allow, with 403 category_not_allowed", async () => {
    clock = new Date("2031-05-10T15:00:00.100Z");
    const key = await accountWithPolicy("quota-d", { allowedCategories: ["transactional"] });
    expect((await send(replicaA, key, email(1))).status).toBe(200);
    const refused = await send(replicaA, key, email(2, { category: "marketing" }));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: "category_not_allowed" });
    expect(await emailsOf("quota-d")).toBe(1);
  });
});

describe("a paused account (issue 31 item 2)", () => {
  it("answers 403 sending_paused to new sends until a key with `domains` resumes it, recorded with who", async () => {
    clock = new Date("2031-05-10T16:00:00.100Z");
    const { fullKey: key } = await createKey(db.pool, {
      account: "paused-a",
      scopes: ["send"],
      expires: "never",
    });
    const admin = await createKey(db.pool, { account: "paused-a", scopes: ["domains"], expires: "never" });
    expect((await send(replicaA, key, email(1))).status).toBe(200);
    expect(await pauseAccount(db.pool, "paused-a", { reason: "by hand", by: "test", now: clock })).toBe(true);

    const refused = await send(replicaB, key, email(2));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: "sending_paused" });
    expect(refused.json.message).toMatch(/by hand/);
    const batch = await replicaA.request("POST", "/v1/send/batch", { key, body: [email(3)] });
    expect(batch.json).toMatchObject({ error: "sending_paused" });
    expect(await emailsOf("paused-a")).toBe(1);

    const view = await replicaA.request("GET", "/v1/account", { key });
    expect(view.json).toMatchObject({
      sendingStatus: "paused",
      paused: { by: "test", reason: "by hand", at: "2031-05-10T16:00:00.100Z" },
    });

    expect((await replicaA.request("POST", "/v1/account/resume", { key })).json.error).toBe(
      "insufficient_scope",
    );
    const resumed = await replicaA.request("POST", "/v1/account/resume", { key: admin.fullKey });
    expect(resumed.status).toBe(200);
    expect(resumed.json).toEqual({ account: "paused-a", sendingStatus: "active", released: 0 });
    const again = await replicaB.request("POST", "/v1/account/resume", { key: admin.fullKey });
    expect(again.status).toBe(409);
    expect((await replicaB.request("GET", "/v1/account", { key })).json).toMatchObject({
      sendingStatus: "active",
      paused: null,
      resumed: { by: `key:${admin.key.keyId}`, at: "2031-05-10T16:00:00.100Z" },
    });
    expect((await send(replicaB, key, email(4))).status).toBe(200);
  });
});
