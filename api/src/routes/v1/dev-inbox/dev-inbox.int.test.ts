import { createKey } from "@mailroom/core/keys";
import { captureMessage } from "@mailroom/core/sandbox";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, keyFor, startTestApp } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";

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
let app: FastifyInstance;
let sendKey: string;
let domainsKey: string;
let rivalKey: string;
let id: string;
let otherId: string;

/** An email of the key's account (scheduled far ahead: no worker runs here), for a capture to belong to. */
async function emailOf(key: string): Promise<string> {
  const sent = await injectAs(app, key, "POST", "/v1/send", {
    from: "hello@acme.test",
    to: "dev@example.test",
    subject: "s",
    text: "t",
    scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  expect(sent.statusCode, sent.body).toBe(200);
  return sent.json().messageId;
}

async function capture(key: string, account: string, recipients: string[], subject: string, raw = MESSAGE) {
  return captureMessage(db.pool, {
    emailId: await emailOf(key),
    account,
    envelopeFrom: "bounces@acme.test",
    recipients,
    subject,
    raw: Buffer.from(raw),
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db, { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" });
  sendKey = await keyFor(db, "default", ["send"]);
  domainsKey = await keyFor(db, "default", ["domains"]);
  rivalKey = await keyFor(db, "rival", ["send"]);
  id = await capture(sendKey, "default", ["dev@example.test"], "Café <b>menu</b>");
  otherId = await capture(rivalKey, "rival", ["dev@example.test"], "Rival", MESSAGE.replace("Café", "Rival"));
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe("GET /v1/key", () => {
  it("describes the calling key to any valid key, without its secret, with its mode", async () => {
    const response = await injectAs(app, domainsKey, "GET", "/v1/key");
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ account: "default", scopes: ["domains"], expiresAt: null, mode: "live" });
    expect(domainsKey).toContain(body.keyId);
    expect(response.body).not.toContain(domainsKey.split("_")[2]);
    const sandbox = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
      mode: "sandbox",
    });
    expect((await injectAs(app, sandbox.fullKey, "GET", "/v1/key")).json().mode).toBe("sandbox");
  });

  it("answers 401 without a key", async () => {
    const response = await app.inject({ method: "GET", url: "/v1/key" });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe("missing_api_key");
  });
});

describe("/v1/dev-inbox", () => {
  it("needs a key with the send scope", async () => {
    expect((await app.inject({ method: "GET", url: "/v1/dev-inbox/messages" })).statusCode).toBe(401);
    const response = await injectAs(app, domainsKey, "GET", "/v1/dev-inbox/messages");
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe("insufficient_scope");
  });

  it("lists and reads captured messages, decoded, with their envelope", async () => {
    const list = await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages");
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id,
        subject: "Café <b>menu</b>",
        from: "Acme <hello@acme.test>",
        to: ["dev@example.test"],
        envelopeFrom: "bounces@acme.test",
        recipients: ["dev@example.test"],
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

  it("answers a malformed id with 400 or 404, never 5xx", async () => {
    for (const bad of ["..%2Fx", "a.b", "..", "%2e%2e%2Fx", "0190a4c2-unknown", "x".repeat(80)]) {
      const response = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${bad}/raw`);
      expect([400, 404], bad).toContain(response.statusCode);
      expect(["validation_error", "not_found"], bad).toContain(response.json().error);
    }
  });

  it("shows each key its own account's mail only (issue 26, issue 30)", async () => {
    const mine = await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages");
    expect(mine.json().data.map((m: { id: string }) => m.id)).toEqual([id]);
    const theirs = await injectAs(app, rivalKey, "GET", "/v1/dev-inbox/messages?to=dev@example.test");
    expect(theirs.json().data.map((m: { id: string }) => m.id)).toEqual([otherId]);
    for (const url of ["", "/raw", "/attachments/0"]) {
      for (const [key, other] of [
        [rivalKey, id],
        [sendKey, otherId],
      ] as const) {
        const res = await injectAs(app, key, "GET", `/v1/dev-inbox/messages/${other}${url}`);
        expect(res.statusCode, `${other}${url}`).toBe(404);
      }
    }
  });

  it("filters by envelope recipient (any case) and subject text (any case)", async () => {
    const bcc = await capture(
      sendKey,
      "default",
      ["A@Example.test", "hidden@example.test"],
      "Your receipt #42",
    );
    const ids = async (query: string) =>
      (await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages?${query}`))
        .json()
        .data.map((m: { id: string }) => m.id);
    expect(await ids("to=hidden%40example.test")).toEqual([bcc]);
    expect(await ids("to=a%40EXAMPLE.test&subject=RECEIPT")).toEqual([bcc]);
    expect(await ids("subject=menu")).toEqual([id]);
    expect(await ids("to=nobody%40example.test")).toEqual([]);
    expect(await ids("limit=1")).toEqual([bcc]);
  });

  it("waits for a message that is captured after the call began, and answers as soon as it is", async () => {
    const waiting = injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages?to=late%40example.test&wait=30");
    let answered = false;
    void waiting.then(() => {
      answered = true;
    });
    // The call is still waiting once a poll has found nothing (no clock: its answer is what is checked).
    await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages?to=late%40example.test");
    expect(answered).toBe(false);
    const late = await capture(sendKey, "default", ["late@example.test"], "late");
    const response = await waiting;
    expect(response.statusCode).toBe(200);
    expect(response.json().data.map((m: { id: string }) => m.id)).toEqual([late]);
  });

  it("with nothing matching, a wait ends with an empty list; a wait out of bounds is a 400", async () => {
    const none = await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages?to=never%40example.test&wait=1");
    expect(none.statusCode).toBe(200);
    expect(none.json().data).toEqual([]);
    for (const wait of ["31", "-1", "abc", "1.5"]) {
      const bad = await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages?wait=${wait}`);
      expect(bad.statusCode, wait).toBe(400);
      expect(bad.json().error).toBe("validation_error");
    }
  });

  it("deletes by filter, then everything of the account, and only the account's", async () => {
    const before = (await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages")).json().data.length;
    const byFilter = await injectAs(app, sendKey, "DELETE", "/v1/dev-inbox/messages?subject=receipt");
    expect(byFilter.statusCode).toBe(204);
    const left = (await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages")).json().data;
    expect(left).toHaveLength(before - 1);
    expect(left.map((m: { subject: string }) => m.subject)).not.toContain("Your receipt #42");
    const response = await injectAs(app, sendKey, "DELETE", "/v1/dev-inbox/messages");
    expect(response.statusCode).toBe(204);
    expect((await injectAs(app, sendKey, "GET", "/v1/dev-inbox/messages")).json().data).toEqual([]);
    expect((await injectAs(app, sendKey, "GET", `/v1/dev-inbox/messages/${id}`)).statusCode).toBe(404);
    const theirs = await injectAs(app, rivalKey, "GET", "/v1/dev-inbox/messages");
    expect(theirs.json().data.map((m: { id: string }) => m.id)).toEqual([otherId]);
  });
});
