import { loadConfig } from "@mailroom/core/config";
import { createKey, findKeysForAuthCounting, hashSecret } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromDomainNote } from "../../cli/src/commands/run-action.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type ApiStack, captureLogs, startApiStack } from "../support/stack.ts";

/** Issue 26, item 6: smaller leaks (a key echoed or logged, key ids probed by timing, a banner's claim). */

let db: TestDatabase;
let api: ApiStack;
let key: string;
let keyId: string;
const logs = captureLogs();
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db, { logger: logs.logger });
  const created = await createKey(db.pool, { account: "leaks", scopes: ["send"], expires: "never" });
  key = created.fullKey;
  keyId = created.key.keyId;
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe("a key pasted into a path is neither echoed nor logged", () => {
  it.each([
    ["GET /v1/emails/<key>", (k: string) => `/v1/emails/${k}`],
    ["GET /v1/emails/<key>?limit=<key>", (k: string) => `/v1/emails/${k}?x=${k}`],
    ["an unknown route", (k: string) => `/v1/keys/${k}`],
    ["a suppression", (k: string) => `/v1/suppressions/${k}`],
  ])("%s", async (_label, url) => {
    const res = await api.request("GET", url(key), { key });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const secret = key.split("_")[2] ?? "";
    expect(res.text).not.toContain(secret);
    expect(logs.lines.join("\n")).not.toContain(secret);
  });
});

describe("an unknown key id and a known id with a wrong secret take the same path", () => {
  it("neither reads the key's row back from Postgres (the row cost a wrong secret ~50 µs)", async () => {
    const now = new Date();
    const wrong = hashSecret("A".repeat(32));
    const policy = { perKey: 0, perAccount: 0 };
    const [unknown, wrongSecret, right] = await findKeysForAuthCounting(
      db.pool,
      [
        { keyId: "ZZZZZZZZZZZZ", presentedSha256: wrong, now },
        { keyId, presentedSha256: wrong, now },
        { keyId, presentedSha256: hashSecret(key.split("_")[2] ?? ""), now },
      ],
      policy,
    );
    expect(unknown).toBeUndefined();
    expect(wrongSecret).toBeUndefined();
    expect(right?.key.keyId).toBe(keyId);
    for (const presented of [`mrk_ZZZZZZZZZZZZ_${"A".repeat(32)}`, `mrk_${keyId}_${"A".repeat(32)}`]) {
      const res = await api.request("GET", "/v1/emails", { key: presented });
      expect(res.json).toEqual({ error: "invalid_api_key", message: "The API key is not valid." });
    }
  });
});

describe("mailroom run's banner", () => {
  it("says what this run does about from-domains", () => {
    const relaxed = fromDomainNote(loadConfig({ MAILROOM_ALLOW_UNVERIFIED_FROM: "true" }));
    const strict = fromDomainNote(loadConfig({ MAILROOM_ALLOW_UNVERIFIED_FROM: "false" }));
    expect(relaxed).toMatch(/accepts any from-domain/);
    expect(strict).not.toMatch(/any from-domain/);
    expect(strict).toMatch(/only from verified domains/);
  });
});
