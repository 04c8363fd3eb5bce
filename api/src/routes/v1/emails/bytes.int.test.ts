import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import PostalMime from "postal-mime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptItem } from "../../../../../test/support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

/** Issue 33 item 5: an email's attachments and its message, as bytes, to the owning account only. */
let db: TestDatabase;
let api: ApiStack;
let key: string;
let keyId: string;
let otherKey: string;
let apiEmail: string;
// ASCII bytes: the test client reads answers as text (the browser test checks a real image).
const PNG = Buffer.from("not really a png");

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
  const created = await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" });
  key = created.fullKey;
  keyId = created.key.keyId;
  otherKey = (await createKey(db.pool, { account: "team-b", scopes: ["send"], expires: "never" })).fullKey;
  const res = await api.request("POST", "/v1/send", {
    key,
    body: {
      from: "a@acme.test",
      to: "b@example.test",
      subject: "s",
      html: '<img src="cid:logo@acme">',
      attachments: [
        { filename: "notes.txt", contentType: "text/plain", content: Buffer.from("hi").toString("base64") },
        {
          filename: "logo.png",
          contentType: "image/png",
          content: PNG.toString("base64"),
          contentId: "logo@acme",
        },
      ],
    },
  });
  expect(res.status, res.text).toBe(200);
  apiEmail = String(res.json.messageId);
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const get = (path: string, k = key) => api.request("GET", path, { key: k });

describe("GET /v1/emails/{id}/attachments/{index}", () => {
  it("serves each attachment's bytes in the detail's order, as a download", async () => {
    const png = await get(`/v1/emails/${apiEmail}/attachments/1`);
    expect(png.status).toBe(200);
    expect(png.headers["content-type"]).toBe("application/octet-stream");
    expect(png.headers["content-disposition"]).toBe("attachment; filename*=UTF-8''logo.png");
    expect(png.headers["x-content-type-options"]).toBe("nosniff");
    expect(png.text).toBe(PNG.toString());
    expect((await get(`/v1/emails/${apiEmail}/attachments/0`)).text).toBe("hi");
  });

  it("answers 404 for another account's email, a missing index or an unknown id, 400 for a bad index", async () => {
    for (const [path, k] of [
      [`/v1/emails/${apiEmail}/attachments/0`, otherKey],
      [`/v1/emails/${apiEmail}/attachments/2`, key],
      ["/v1/emails/0190a4c2-7a8b-7c00-8000-000000000001/attachments/0", key],
      ["/v1/emails/nope/attachments/0", key],
    ] as const) {
      const res = await get(path, k);
      expect(res.status, path).toBe(404);
      expect(res.json).toMatchObject({ error: "not_found" });
    }
    const bad = await get(`/v1/emails/${apiEmail}/attachments/-1`);
    expect(bad.status).toBe(400);
    expect(bad.json).toHaveProperty("error");
  });
});

describe("GET /v1/emails/{id}/raw", () => {
  // What was delivered is compared byte for byte in test/e2e/raw-message.int.test.ts (real worker and sink).
  it("serves an API send as built for delivery, without DKIM signature, to its account only", async () => {
    const res = await get(`/v1/emails/${apiEmail}/raw`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toBe("message/rfc822");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="${apiEmail}.eml"`);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-mailroom-dkim"]).toBe("omitted");
    // postal-mime, a parser independent of the composer, reads back what was sent.
    const parsed = await PostalMime.parse(res.bytes);
    expect(parsed.subject).toBe("s");
    expect(parsed.messageId).toBe((await get(`/v1/emails/${apiEmail}`)).json.messageIdHeader);
    expect(parsed.html?.trim()).toBe('<img src="cid:logo@acme">');
    expect(
      parsed.attachments.map((a) => ({
        filename: a.filename,
        contentId: a.contentId,
        content: Buffer.from(a.content as ArrayBuffer).toString(),
      })),
    ).toEqual(
      expect.arrayContaining([
        { filename: "notes.txt", contentId: undefined, content: "hi" },
        { filename: "logo.png", contentId: "<logo@acme>", content: PNG.toString() },
      ]),
    );
    expect(parsed.attachments).toHaveLength(2);
    // The same bytes each time it is built: nothing random in the composition (ADR 0071).
    expect((await get(`/v1/emails/${apiEmail}/raw`)).bytes.equals(res.bytes)).toBe(true);
  });

  it("serves an SMTP submission as submitted, with the Message-ID and Date it lacked, to its account only", async () => {
    const raw = Buffer.from("From: a@acme.test\r\nTo: b@example.test\r\nSubject: Raw\r\n\r\nBody.\r\n");
    const [accepted] = await acceptEmails(db.pool, { hostname: "test" }, [
      { ...acceptItem("team-a", keyId, { draft: { subject: "Raw", raw } }), source: "smtp" },
    ]);
    const id = String(accepted?.messageId);
    const res = await get(`/v1/emails/${id}/raw`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("message/rfc822");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="${id}.eml"`);
    const { rows } = await db.pool.query("select message_id_header from emails where id = $1", [id]);
    expect(res.text).toMatch(
      new RegExp(
        `^Message-ID: ${rows[0].message_id_header}\r\nDate: \\w{3}, \\d{2} \\w{3} \\d{4} [\\d:]{8} \\+0000\r\n`,
      ),
    );
    expect(res.bytes.subarray(res.bytes.length - raw.length).equals(raw)).toBe(true);
    expect((await get(`/v1/emails/${id}/raw`, otherKey)).status).toBe(404);

    // A client that wrote both fields: its bytes exactly.
    const whole = `Message-ID: <own@app.test>\r\nDate: Mon, 02 Nov 2026 10:00:00 +0100\r\n${raw}`;
    const draft = { subject: "Raw", raw: Buffer.from(whole), messageId: "<own@app.test>" };
    const [kept] = await acceptEmails(db.pool, { hostname: "test" }, [
      { ...acceptItem("team-a", keyId, { draft }), source: "smtp" },
    ]);
    expect((await get(`/v1/emails/${String(kept?.messageId)}/raw`)).text).toBe(whole);
  });

  it("answers 404 in the spec's shape for another account's email, an unknown id or a malformed one", async () => {
    for (const [path, k] of [
      [`/v1/emails/${apiEmail}/raw`, otherKey],
      ["/v1/emails/0190a4c2-7a8b-7c00-8000-000000000001/raw", key],
      ["/v1/emails/nope/raw", key],
    ] as const) {
      const res = await get(path, k);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ error: "not_found", message: expect.any(String) });
    }
  });
});
