import { withTransaction } from "@mailroom/core/db";
import { createKey, revokeKey, type Scope } from "@mailroom/core/keys";
import {
  activeSecrets,
  createEndpoint,
  emitEvents,
  fanOutEvents,
  WEBHOOK_EVENT_TYPES,
} from "@mailroom/core/webhooks";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, startTestApp, keyFor as testKey } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";

let db: TestDatabase;
let app: FastifyInstance;
let acmeKey: string;

const keyFor = (account: string, scopes: Scope[]) => testKey(db, account, scopes);

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db);
  acmeKey = await keyFor("acme", ["webhooks"]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

function call(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, body?: unknown, key = acmeKey) {
  return injectAs(app, key, method, url, body);
}

const hook = { url: "https://hooks.example.com/mailroom", events: ["email.delivered", "email.bounced"] };

describe("/v1/webhooks", () => {
  it("creates an endpoint, shows its secret once, reads, changes and deletes it", async () => {
    const created = await call("POST", "/v1/webhooks", { ...hook, description: "billing" });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ ...hook, description: "billing", enabled: true, managedBy: "api" });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await activeSecrets(db.pool, body.id, new Date())).toEqual([body.secret]);

    const read = await call("GET", `/v1/webhooks/${body.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ ...body, secret: undefined });
    expect(read.body).not.toContain(body.secret);
    const list = await call("GET", "/v1/webhooks");
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(body.id);
    expect(list.body).not.toContain("whsec_");

    const patched = await call("PATCH", `/v1/webhooks/${body.id}`, { enabled: false, events: [] });
    expect(patched.json()).toMatchObject({
      enabled: false,
      disabledReason: "disabled by request",
      events: [],
    });
    const enabled = await call("PATCH", `/v1/webhooks/${body.id}`, { enabled: true, description: null });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, description: null });

    expect((await call("DELETE", `/v1/webhooks/${body.id}`)).statusCode).toBe(204);
    expect((await call("GET", `/v1/webhooks/${body.id}`)).statusCode).toBe(404);
  });

  it("rotates the secret: the new one is shown once and both sign during the overlap", async () => {
    const { id, secret } = (await call("POST", "/v1/webhooks", hook)).json();
    const rotated = await call("POST", `/v1/webhooks/${id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.statusCode).toBe(200);
    const { secret: next, previousSecretsExpireAt } = rotated.json();
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(Date.parse(previousSecretsExpireAt) - Date.now()).toBeGreaterThan(3_590_000);
    expect(await activeSecrets(db.pool, id, new Date())).toEqual([next, secret]);
    expect(await activeSecrets(db.pool, id, new Date(Date.now() + 3_601_000))).toEqual([next]);
    // Without a body, the default overlap (24 h) applies.
    expect((await call("POST", `/v1/webhooks/${id}/rotate-secret`)).statusCode).toBe(200);
  });

  it("lists deliveries, shows one with its attempts, and replays it", async () => {
    const { id } = (await call("POST", "/v1/webhooks", { url: "https://hooks.example.com/x" })).json();
    const eventIds = await withTransaction(db.pool, (c) =>
      emitEvents(c, [{ account: "acme", type: "email.bounced", data: { emailId: "e1", reason: "550" } }]),
    );
    await fanOutEvents(db.pool, eventIds);
    const page = await call("GET", `/v1/webhooks/${id}/deliveries?limit=10`);
    expect(page.statusCode).toBe(200);
    const [delivery] = page.json().data;
    expect(delivery).toMatchObject({
      eventId: eventIds[0],
      eventType: "email.bounced",
      state: "pending",
      attempts: 0,
    });
    expect(page.json().hasMore).toBe(false);
    // One pagination parameter everywhere: `after` (the last id of the previous page) and `hasMore`.
    const after = await call("GET", `/v1/webhooks/${id}/deliveries?after=${delivery.id}`);
    expect(after.json()).toEqual({ data: [], hasMore: false });
    expect((await call("GET", `/v1/webhooks/${id}/deliveries?after=x`)).json().message).toBe(
      "after: not a delivery id",
    );
    expect((await call("GET", `/v1/webhooks/${id}/deliveries?before=${delivery.id}`)).statusCode).toBe(400);
    await db.pool.query(`update webhook_deliveries set state = 'failed' where id = $1`, [delivery.id]);

    const one = await call("GET", `/v1/webhooks/${id}/deliveries/${delivery.id}`);
    expect(one.json()).toMatchObject({ id: delivery.id, state: "failed", attemptLog: [] });
    const replay = await call("POST", `/v1/webhooks/${id}/deliveries/${delivery.id}/replay`);
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toMatchObject({ id: delivery.id, state: "pending" });
    const { rows } = await db.pool.query(`select key from graphile_worker._private_jobs where key = $1`, [
      `webhook:${id}:email:e1`,
    ]);
    expect(rows).toHaveLength(1);
    expect(
      (await call("GET", `/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000`)).statusCode,
    ).toBe(404);
  });

  it("rejects hostile or invalid input with validation_error", async () => {
    const cases: [unknown, RegExp][] = [
      [{ url: "http://169.254.169.254/latest/meta-data/" }, /^url: .*metadata, link-local/],
      [{ url: "http://10.0.0.5/hook" }, /^url: .*private or loopback/],
      // The metadata address behind NAT64, 6to4 and IPv4-mapped IPv6 (issue 15).
      [{ url: "http://[64:ff9b::a9fe:a9fe]/" }, /^url: .*metadata, link-local/],
      [{ url: "http://[2002:a9fe:a9fe::1]/" }, /^url: .*metadata, link-local/],
      [{ url: "http://[::ffff:169.254.169.254]/" }, /^url: .*metadata, link-local/],
      [{ url: "http://metadata.google.internal/" }, /^url: .*metadata host/],
      [{ url: "file:///etc/passwd" }, /^url: the URL must use https or http/],
      [{ ...hook, events: ["email.opened"] }, /^events\[0\]/],
      [{ ...hook, secret: "whsec_mine" }, /^secret: is not a known field/],
    ];
    for (const [body, message] of cases) {
      const response = await call("POST", "/v1/webhooks", body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ error: "validation_error" });
      expect(response.json().message).toMatch(message);
    }
  });
});

describe("/v1/webhooks security", () => {
  it("answers 401 without a key and for a revoked key", async () => {
    expect((await app.inject({ method: "GET", url: "/v1/webhooks" })).statusCode).toBe(401);
    const { key, fullKey } = await createKey(db.pool, {
      account: "acme",
      scopes: ["webhooks"],
      expires: "never",
    });
    expect((await call("GET", "/v1/webhooks", undefined, fullKey)).statusCode).toBe(200);
    await revokeKey(db.pool, key.keyId);
    const revoked = await call("GET", "/v1/webhooks", undefined, fullKey);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error).toBe("api_key_revoked");
  });

  it("answers 403 to a key without the webhooks scope", async () => {
    const sender = await keyFor("acme", ["send", "templates", "domains"]);
    const response = await call("POST", "/v1/webhooks", hook, sender);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("insufficient_scope");
  });

  it("answers 404 for another account's endpoint, whatever the route", async () => {
    const { id } = (await call("POST", "/v1/webhooks", hook)).json();
    const other = await keyFor("globex", ["webhooks"]);
    const attempts = [
      await call("GET", `/v1/webhooks/${id}`, undefined, other),
      await call("PATCH", `/v1/webhooks/${id}`, { enabled: false }, other),
      await call("DELETE", `/v1/webhooks/${id}`, undefined, other),
      await call("POST", `/v1/webhooks/${id}/rotate-secret`, {}, other),
      await call("GET", `/v1/webhooks/${id}/deliveries`, undefined, other),
      await call("GET", "/v1/webhooks/not-a-uuid", undefined, other),
    ];
    for (const response of attempts) {
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toBe("not_found");
    }
    expect((await call("GET", "/v1/webhooks", undefined, other)).json().data).toEqual([]);
    expect((await call("GET", `/v1/webhooks/${id}`)).json().enabled).toBe(true);
  });

  it("answers 409 managed_by_operator to changes of an operator-declared endpoint", async () => {
    const { endpoint } = await createEndpoint(db.pool, {
      account: "acme",
      name: "billing-hook",
      url: "https://hooks.example.com/op",
      managedBy: "operator",
    });
    const changes = [
      await call("PATCH", `/v1/webhooks/${endpoint.id}`, { enabled: false }),
      await call("DELETE", `/v1/webhooks/${endpoint.id}`),
      await call("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, {}),
    ];
    for (const response of changes) {
      expect(response.statusCode).toBe(409);
      expect(response.json().error).toBe("managed_by_operator");
    }
    const read = await call("GET", `/v1/webhooks/${endpoint.id}`);
    // The resource's name, so a reader knows which WebhookEndpoint to change instead (the console shows it).
    expect(read.json()).toMatchObject({ managedBy: "operator", enabled: true, name: "billing-hook" });
    expect((await call("GET", "/v1/webhooks")).json().data).toContainEqual(
      expect.objectContaining({ id: endpoint.id, name: "billing-hook" }),
    );
  });

  it("lists the event types an endpoint can subscribe to, each accepted by a create", async () => {
    const res = await call("GET", "/v1/webhooks/event-types");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: [...WEBHOOK_EVENT_TYPES] });
    const all = await call("POST", "/v1/webhooks", { url: hook.url, events: res.json().data });
    expect(all.statusCode, all.body).toBe(201);
    expect(all.json()).toMatchObject({ events: [...WEBHOOK_EVENT_TYPES], name: null });
    const refused = await call("GET", "/v1/webhooks/event-types", undefined, await keyFor("acme", ["send"]));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe("insufficient_scope");
  });
});
