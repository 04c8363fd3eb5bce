import { connect } from "node:net";
import { createKey, revokeKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { type ApiStack, captureLogs, startApiStack } from "../../test/support/stack.ts";

const SEND = { from: "Acme <hello@acme.test>", to: "you@example.test", subject: "Hi", text: "Hello" };
const DAY = 24 * 60 * 60 * 1000;

let db: TestDatabase;
let api: ApiStack;
let clock = new Date();
const logs = captureLogs();

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db, { logger: logs.logger, now: () => clock });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

async function emailCount(): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>("select count(*) as n from emails");
  return Number(rows[0]?.n);
}

describe("authentication over HTTPS", () => {
  it("accepts a valid key with the route's scope", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const res = await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "queued", messageId: expect.any(String) });
  });

  it("answers 401 missing_api_key without a bearer token, whatever else is sent", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const headerSets: Record<string, string>[] = [
      {},
      { cookie: `api_key=${fullKey}` },
      { "x-api-key": fullKey },
      { authorization: "" },
      // Spec §7: another scheme, or `Bearer` with nothing after it, carries no bearer token either.
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: "bearer \t " },
      { authorization: `Basic ${Buffer.from(`user:${fullKey}`).toString("base64")}` },
      { authorization: `Token ${fullKey}` },
      { authorization: `Bearer${fullKey}` },
    ];
    for (const headers of headerSets) {
      const res = await api.request("POST", `/v1/send?api_key=${fullKey}`, { headers, body: SEND });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: "missing_api_key", message: expect.any(String) });
    }
  });

  it("answers invalid_api_key to a bearer token that is not a well-formed key", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    for (const authorization of [
      "Bearer not-a-key",
      `Bearer ${fullKey} ${fullKey}`,
      `Bearer ${fullKey}x`,
      `Bearer ${fullKey.replace("mrk_", "sk_")}`,
    ]) {
      const res = await api.request("POST", "/v1/send", { headers: { authorization }, body: SEND });
      expect(res.status, authorization).toBe(401);
      expect(res.json.error).toBe("invalid_api_key");
    }
  });

  it("gives an unknown key id and a wrong secret byte-identical answers", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    const wrongSecret = `mrk_${key.keyId}_${"A".repeat(32)}`;
    const unknownId = `mrk_ZZZZZZZZZZZZ_${fullKey.slice(-32)}`;
    const a = await api.request("POST", "/v1/send", { key: wrongSecret, body: SEND });
    const b = await api.request("POST", "/v1/send", { key: unknownId, body: SEND });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.text).toBe(b.text);
    expect(a.headers["www-authenticate"]).toBe(b.headers["www-authenticate"]);
    expect(a.json.error).toBe("invalid_api_key");
  });

  it("tells revoked only to a caller who proved the secret, and takes effect on the next request", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    expect((await api.request("POST", "/v1/send", { key: fullKey, body: SEND })).status).toBe(200);
    await revokeKey(db.pool, key.keyId);
    const res = await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("api_key_revoked");
    const forged = await api.request("POST", "/v1/send", {
      key: `mrk_${key.keyId}_${"b".repeat(32)}`,
      body: SEND,
    });
    expect(forged.json.error).toBe("invalid_api_key");
  });

  it("expires keys at their expiry and says so only with the right secret", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "30d",
    });
    clock = new Date(Date.now() + 29 * DAY);
    expect((await api.request("POST", "/v1/send", { key: fullKey, body: SEND })).status).toBe(200);
    clock = new Date(Date.now() + 31 * DAY);
    const res = await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("api_key_expired");
    const forged = await api.request("POST", "/v1/send", {
      key: `mrk_${key.keyId}_${"c".repeat(32)}`,
      body: SEND,
    });
    expect(forged.json.error).toBe("invalid_api_key");
    clock = new Date();
  });

  it("answers 403 insufficient_scope when the key lacks the route's scope", async () => {
    const { fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["domains"],
      expires: "never",
    });
    const before = await emailCount();
    const res = await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: "insufficient_scope", message: expect.stringContaining("send") });
    expect(await emailCount()).toBe(before);
  });

  it("refuses plain HTTP with 403 https_required and never processes the request", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const before = await emailCount();
    const body = JSON.stringify(SEND);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(api.server.port, "127.0.0.1", () => {
        socket.write(
          `POST /v1/send HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${fullKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      });
      let data = "";
      socket.on("data", (c) => {
        data += c.toString();
      });
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 403 /);
    expect(raw).toContain('"error":"https_required"');
    expect(await emailCount()).toBe(before);
  });

  it("never writes a full key or secret to the logs", async () => {
    const start = logs.lines.length;
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    await api.request("POST", "/v1/send", { key: fullKey, body: { ...SEND, to: "broken" } });
    await api.request("POST", "/v1/nope", { key: fullKey, body: SEND });
    await revokeKey(db.pool, key.keyId);
    await api.request("POST", "/v1/send", { key: fullKey, body: SEND });
    const secret = fullKey.slice(-32);
    expect(logs.lines.length).toBeGreaterThan(3);
    // One access line per request, with the key id once the key was proven, and the accepted email's id.
    const access = logs.lines
      .slice(start)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === "request completed");
    expect(access.map((l) => [l.url, l.statusCode])).toEqual([
      ["/v1/send", 200],
      ["/v1/send", 400],
      ["/v1/nope", 404],
      ["/v1/send", 401],
    ]);
    expect(access.map((l) => l.keyId)).toEqual([key.keyId, key.keyId, undefined, undefined]);
    expect(access[0]?.emailId).toEqual(expect.any(String));
    for (const line of logs.lines) {
      expect(line).not.toContain(secret);
      expect(line.toLowerCase()).not.toContain("bearer");
    }
  });
});
