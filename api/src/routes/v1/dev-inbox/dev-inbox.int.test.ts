import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { newInboxMessageId } from "@mailroom/core/dev-inbox";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, keyFor, startTestApp } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { TEST_KEK } from "../../../../../test/support/stack.ts";
import { buildApp } from "../../../app.ts";

const MESSAGE = [
  "From: Acme <hello@acme.test>",
  "To: dev@example.test",
  "Subject: =?UTF-8?Q?Caf=C3=A9_<b>menu</b>?=",
  "Date: Tue, 24 Nov 2026 05:00:00 +0000",
  "MIME-Version: 1.0",
  'Content-Type: multipart/mixed; boundary="b1"',
  "",
  "--b1",
  "Content-Type: text/plain; charset=utf-8",
  "",
  "Hello",
  "--b1",
  'Content-Type: text/html; charset=utf-8; name="evil.html"',
  'Content-Disposition: attachment; filename="evil.html"',
  "",
  "<script>alert(1)</script>",
  "--b1--",
  "",
].join("\r\n");

let db: TestDatabase;
let dir: string;
let app: FastifyInstance;
let plain: FastifyInstance;
let sendKey: string;
let domainsKey: string;
const id = newInboxMessageId(new Date("2026-11-24T05:00:00Z"), 1);
const otherId = newInboxMessageId(new Date("2026-11-24T05:00:01Z"), 2);
const orphanId = newInboxMessageId(new Date("2026-11-24T05:00:02Z"), 3);

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-inbox-"));
  await writeFile(path.join(dir, `${id}.eml`), MESSAGE);
  await writeFile(path.join(dir, `${id}.owner`), "default");
  // Another account's captured message, and one the capture could not attribute to anyone.
  await writeFile(path.join(dir, `${otherId}.eml`), MESSAGE.replace("Café", "Rival"));
  await writeFile(path.join(dir, `${otherId}.owner`), "rival");
  await writeFile(path.join(dir, `${orphanId}.eml`), MESSAGE.replace("Café", "Orphan"));
  app = buildApp({
    config: loadConfig({}),
    pool: db.pool,
    logger: createLogger({ level: "silent", name: "test" }),
    metrics: createApiMetrics(),
    kek: TEST_KEK,
    devInboxDir: dir,
  });
  await app.ready();
  plain = await startTestApp(db);
  sendKey = await keyFor(db, "default", ["send"]);
  domainsKey = await keyFor(db, "default", ["domains"]);
});

afterAll(async () => {
  await app?.close();
  await plain?.close();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("GET /v1/key", () => {
  it("describes the calling key to any valid key, without its secret", async () => {
    const response = await injectAs(plain, domainsKey, "GET", "/v1/key");
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ account: "default", scopes: ["domains"], expiresAt: null });
    expect(domainsKey).toContain(body.keyId);
    expect(response.body).not.toContain(domainsKey.split("_")[2]);
  });

  it("answers 401 without a key", async () => {
    const response = await plain.inject({ method: "GET", url: "/v1/key" });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe("missing_api_key");
  });
});

describe("/v1/dev-inbox", () => {
  it("does not exist outside a local run", async () => {
    const response = await injectAs(plain, sendKey, "GET", "/v1/dev-inbox/messages");
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe("not_found");
  });

  it("needs a key with the send scope", async () => {
    expect((await app.inject({ method: "GET", url: "/v1/dev-inbox/messages" })).statusCode).toBe(401);
    const response = await injectAs(app, domainsKey, "GET", "/v1/dev-inbox/messages");
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("insufficient_scope");
  });

  it("lists and reads captured messages, decoded", async () => {
    const list = await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages");
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id,
        subject: "Café <b>menu</b>",
        from: "Acme <hello@acme.test>",
        to: ["dev@example.test"],
      }),
    ]);
    const one = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}`);
    expect(one.json()).toMatchObject({
      text: expect.stringMatching(/^Hello\s*$/),
      attachments: [{ index: 0, filename: "evil.html", contentType: "text/html" }],
    });
  });

  it("serves the raw message and attachments as downloads, never as pages of this origin", async () => {
    const raw = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}/raw`);
    expect(raw.statusCode).toBe(200);
    expect(raw.headers["content-type"]).toBe("message/rfc822");
    expect(raw.body).toBe(MESSAGE);
    const file = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}/attachments/0`);
    expect(file.headers["content-type"]).toBe("application/octet-stream");
    expect(file.headers["content-disposition"]).toMatch(/^attachment;/);
    expect(file.body).toMatch(/^<script>alert\(1\)<\/script>\s*$/);
    const missing = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}/attachments/7`);
    expect(missing.statusCode).toBe(404);
  });

  it("refuses ids that could leave the inbox directory", async () => {
    // A message next to the inbox, which no id may reach.
    await writeFile(path.join(dir, "..", `${path.basename(dir)}-outside.eml`), MESSAGE);
    for (const bad of [`..%2F${path.basename(dir)}-outside`, "a.b", "..", "%2e%2e%2Fx"]) {
      const response = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${bad}/raw`);
      expect([400, 404], bad).toContain(response.statusCode);
      expect(["validation_error", "not_found"], bad).toContain(response.json().error);
    }
    const traversal = await injectAs(
      app,
      sendKey,
      "GET",
      `/v1/dev-inbox/messages/..%2F${path.basename(dir)}-outside`,
    );
    expect(traversal.statusCode).toBe(400);
    await rm(path.join(dir, "..", `${path.basename(dir)}-outside.eml`));
  });

  it("shows each key its own account's mail only, and unattributed mail to nobody (issue 26)", async () => {
    const rivalKey = await keyFor(db, "rival", ["send"]);
    const mine = await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages");
    expect(mine.json().data.map((m: { id: string }) => m.id)).toEqual([id]);
    const theirs = await injectAs(app, rivalKey, "GET", "/v1/dev-inbox/messages");
    expect(theirs.json().data.map((m: { id: string }) => m.id)).toEqual([otherId]);
    for (const url of ["", "/raw", "/attachments/0"]) {
      for (const [key, other] of [
        [rivalKey, id],
        [sendKey, otherId],
        [sendKey, orphanId],
        [rivalKey, orphanId],
      ] as const) {
        const res = await injectAs(app, key, "GET", `/v1/dev-inbox/messages/${other}${url}`);
        expect(res.statusCode, `${other}${url}`).toBe(404);
      }
    }
  });

  it("deletes every message of the account, and only those", async () => {
    const response = await injectAs(app, sendKey, "DELETE", "/v1/dev-inbox/messages");
    expect(response.statusCode).toBe(204);
    expect((await readdir(dir)).sort()).toEqual(
      [`${orphanId}.eml`, `${otherId}.eml`, `${otherId}.owner`].sort(),
    );
    expect((await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}`)).statusCode).toBe(404);
  });
});
