import { acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptItem } from "../../../../../test/support/accept-item.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

/** Issue 33 item 5: an email's attachments and its submitted message, as bytes, to the owning account only. */
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
  it("serves an SMTP submission exactly as submitted, to its account only", async () => {
    const raw = Buffer.from("From: a@acme.test\r\nTo: b@example.test\r\nSubject: Raw\r\n\r\nBody.\r\n");
    const [accepted] = await acceptEmails(db.pool, { hostname: "test" }, [
      acceptItem("team-a", keyId, { draft: { subject: "Raw", raw } }),
    ]);
    const id = String(accepted?.messageId);
    const res = await get(`/v1/emails/${id}/raw`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("message/rfc822");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="${id}.eml"`);
    expect(res.text).toBe(raw.toString());
    expect((await get(`/v1/emails/${id}/raw`, otherKey)).status).toBe(404);
  });

  it("answers 404 with a reason for an email sent through the API (composed at each attempt, not kept)", async () => {
    const res = await get(`/v1/emails/${apiEmail}/raw`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: "not_found", message: expect.stringContaining("SMTP") });
  });
});
