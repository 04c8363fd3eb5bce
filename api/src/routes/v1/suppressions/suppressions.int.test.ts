import { randomUUID } from "node:crypto";
import { createDeliveryStore } from "@mailroom/core/emails";
import { createKey, revokeKey } from "@mailroom/core/keys";
import { addSuppressions } from "@mailroom/core/suppressions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

interface SuppressionBody {
  address: string;
  reason: string;
  detail: string | null;
  sourceEmailId: string | null;
  createdAt: string;
}

let db: TestDatabase;
let api: ApiStack;
let key: string;
let otherKey: string;

const SOURCE_EMAIL = randomUUID();
// Unsorted on purpose: the list must come back in address order whatever the insertion order.
const LISTED = Array.from(
  { length: 25 },
  (_, i) => `user${String((i * 7) % 25).padStart(2, "0")}@example.test`,
);

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
  key = (await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" })).fullKey;
  otherKey = (await createKey(db.pool, { account: "team-b", scopes: ["send"], expires: "never" })).fullKey;
  await addSuppressions(
    db.pool,
    "team-a",
    LISTED.map((address) => ({ address, reason: "hard_bounce", detail: "550 5.1.1 no such user" })),
  );
  await addSuppressions(db.pool, "team-a", [
    {
      address: "Bounced@Example.TEST",
      reason: "hard_bounce",
      detail: "550 gone",
      sourceEmailId: SOURCE_EMAIL,
    },
  ]);
  await addSuppressions(db.pool, "team-b", [{ address: "theirs@example.test", reason: "manual" }]);
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const path = (address: string) => `/v1/suppressions/${encodeURIComponent(address)}`;

describe("GET /v1/suppressions", () => {
  it("pages through the account's list in address order with an `after` cursor", async () => {
    const seen: string[] = [];
    let after: string | undefined;
    const pages: boolean[] = [];
    for (let page = 0; page < 10; page++) {
      const query = `limit=10${after ? `&after=${encodeURIComponent(after)}` : ""}`;
      const res = await api.request("GET", `/v1/suppressions?${query}`, { key });
      expect(res.status, res.text).toBe(200);
      const data = res.json.data as SuppressionBody[];
      seen.push(...data.map((s) => s.address));
      pages.push(Boolean(res.json.hasMore));
      after = data.at(-1)?.address;
      if (!res.json.hasMore) break;
    }
    expect(pages).toEqual([true, true, false]);
    expect(seen).toEqual([...LISTED, "bounced@example.test"].sort());
    const first = await api.request("GET", "/v1/suppressions", { key });
    expect((first.json.data as SuppressionBody[]).length).toBe(20);
    expect(first.json.hasMore).toBe(true);
    const all = await api.request("GET", "/v1/suppressions?limit=100", { key });
    expect((all.json.data as SuppressionBody[]).map((s) => s.address)).not.toContain("theirs@example.test");
    expect(all.json.hasMore).toBe(false);
  });

  it("refuses bad paging parameters", async () => {
    for (const bad of ["limit=0", "limit=101", "limit=-1", "limit=ten", `after=${"a".repeat(400)}`, "x=1"]) {
      const res = await api.request("GET", `/v1/suppressions?${bad}`, { key });
      expect(res.status, bad).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
  });
});

describe("POST /v1/suppressions", () => {
  it("adds an address by hand (manual, with its note); a repeat answers 200 with the entry as it was", async () => {
    const res = await api.request("POST", "/v1/suppressions", {
      key,
      body: { address: "Asked.Us@Example.TEST", detail: "asked by phone to stop" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      address: "asked.us@example.test",
      reason: "manual",
      detail: "asked by phone to stop",
      sourceEmailId: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await api.request("GET", path("asked.us@example.test"), { key })).json).toEqual(res.json);
    const again = await api.request("POST", "/v1/suppressions", {
      key,
      body: { address: "asked.us@example.test" },
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
    // An address suppressed by a bounce keeps that reason: the entry says why and since when.
    const bounced = await api.request("POST", "/v1/suppressions", {
      key,
      body: { address: "bounced@example.test" },
    });
    expect(bounced.status).toBe(200);
    expect(bounced.json).toMatchObject({
      reason: "hard_bounce",
      detail: "550 gone",
      sourceEmailId: SOURCE_EMAIL,
    });
    // Only this account's list changed.
    expect((await api.request("GET", path("asked.us@example.test"), { key: otherKey })).status).toBe(404);
  });

  it("refuses a bad body with 400", async () => {
    for (const body of [
      {},
      { address: "not-an-address" },
      { address: "a@example.test", reason: "hard_bounce" },
      { address: 7 },
      { address: "a@example.test", detail: "x".repeat(1001) },
    ]) {
      const res = await api.request("POST", "/v1/suppressions", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
  });

  it("makes later sends to the address fail `suppressed`, and the log says why and since when", async () => {
    const added = await api.request("POST", "/v1/suppressions", {
      key,
      body: { address: "stop@example.test" },
    });
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "stop@example.test", subject: "hi", text: "t" },
    });
    expect(sent.status, sent.text).toBe(200);
    const id = String(sent.json.messageId);
    expect(await createDeliveryStore(db.pool).claim(id)).toEqual({ outcome: "failed", reason: "suppressed" });
    const logged = await api.request("GET", `/v1/emails/${id}`, { key });
    expect(logged.json).toMatchObject({ status: "failed", failureReason: "suppressed" });
    const events = logged.json.events as { type: string; detail: Record<string, unknown> }[];
    expect(events.at(-1)).toMatchObject({
      type: "failed",
      detail: {
        reason: "suppressed",
        suppressions: [{ address: "stop@example.test", reason: "manual", since: expect.any(String) }],
      },
    });
    const listed = (events.at(-1)?.detail.suppressions ?? []) as { since: string }[];
    const since = listed[0]?.since ?? "";
    expect(Date.parse(since)).toBe(Date.parse(String(added.json.createdAt)));
  });
});

describe("GET and DELETE /v1/suppressions/:address", () => {
  it("reads one entry, whatever the case of the address", async () => {
    const res = await api.request("GET", path("BOUNCED@example.test"), { key });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      address: "bounced@example.test",
      reason: "hard_bounce",
      detail: "550 gone",
      sourceEmailId: SOURCE_EMAIL,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const missing = await api.request("GET", path("nobody@example.test"), { key });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe("not_found");
  });

  it("deletes with 204, after which the address is gone; a second delete is 404", async () => {
    const res = await api.request("DELETE", path("user03@example.test"), { key });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await api.request("GET", path("user03@example.test"), { key })).status).toBe(404);
    const again = await api.request("DELETE", path("user03@example.test"), { key });
    expect(again.status).toBe(404);
    expect(again.json.error).toBe("not_found");
    const { rows } = await db.pool.query("select 1 from suppressions where address = 'user03@example.test'");
    expect(rows).toEqual([]);
  });

  it("refuses what is not an email address with 400", async () => {
    for (const hostile of [
      "not-an-address",
      "a@b",
      "@example.test",
      "a@example.test/../x",
      "a@example.test?x",
      "a\r\nb@example.test",
      "'; delete from suppressions; --@example.test",
    ]) {
      for (const method of ["GET", "DELETE"]) {
        const res = await api.request(method, path(hostile), { key });
        expect(res.status, `${method} ${JSON.stringify(hostile)}`).toBe(400);
        expect(res.json.error).toBe("validation_error");
      }
    }
    const { rows } = await db.pool.query<{ n: number }>("select count(*)::int as n from suppressions");
    expect(rows[0]?.n).toBeGreaterThan(20);
  });

  it("never shows or changes another account's entries", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await api.request(method, path("theirs@example.test"), { key });
      expect(res.status, method).toBe(404);
      const mine = await api.request(method, path("bounced@example.test"), { key: otherKey });
      expect(mine.status, method).toBe(404);
    }
    expect((await api.request("GET", path("theirs@example.test"), { key: otherKey })).status).toBe(200);
    expect((await api.request("GET", path("bounced@example.test"), { key })).status).toBe(200);
  });

  it("needs the send scope and a live key", async () => {
    const domainsOnly = (
      await createKey(db.pool, { account: "team-a", scopes: ["domains"], expires: "never" })
    ).fullKey;
    const revoked = await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" });
    await revokeKey(db.pool, revoked.key.keyId);
    for (const [method, route] of [
      ["GET", "/v1/suppressions"],
      ["POST", "/v1/suppressions"],
      ["GET", path("user05@example.test")],
      ["DELETE", path("user05@example.test")],
    ] as const) {
      const body = method === "POST" ? { address: "user05@example.test" } : undefined;
      const forbidden = await api.request(method, route, { key: domainsOnly, body });
      expect(forbidden.status, `${method} ${route}`).toBe(403);
      expect(forbidden.json.error).toBe("insufficient_scope");
      const dead = await api.request(method, route, { key: revoked.fullKey, body });
      expect(dead.status).toBe(401);
      expect(dead.json.error).toBe("api_key_revoked");
      expect((await api.request(method, route, { body })).status).toBe(401);
    }
    expect((await api.request("GET", path("user05@example.test"), { key })).status).toBe(200);
  });
});
