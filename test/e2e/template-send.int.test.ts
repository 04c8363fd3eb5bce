import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type ApiStack, startApiStack } from "../support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
  key = (await createKey(db.pool, { account: "shop", scopes: ["send", "templates"], expires: "never" }))
    .fullKey;
  const created = await api.request("POST", "/v1/templates", {
    key,
    body: {
      name: "receipt",
      subject: "Receipt for {{name}}",
      html: "<p>Hello {{name}}, total {{total}}</p>",
      text: "Hello {{name}}, total {{total}}",
      variables: {
        type: "object",
        required: ["name", "total"],
        properties: { name: { type: "string" }, total: { type: "number" } },
      },
    },
  });
  expect(created.status, created.text).toBe(201);
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

describe("sending with a saved template", () => {
  it("renders at acceptance, so the log holds exactly what is sent", async () => {
    const res = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "shop@acme.test",
        to: "buyer@example.test",
        template: { name: "receipt", variables: { name: "<script>alert(1)</script>", total: 12.5 } },
      },
    });
    expect(res.status, res.text).toBe(200);
    const detail = await api.request("GET", `/v1/emails/${res.json.messageId}`, { key });
    expect(detail.json.subject).toBe("Receipt for <script>alert(1)</script>");
    expect(detail.json.html).toBe("<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;, total 12.5</p>");
    expect(detail.json.text).toBe("Hello <script>alert(1)</script>, total 12.5");
  });

  it("answers 422 template_render_error naming missing or invalid variables", async () => {
    const missing = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "shop@acme.test",
        to: "b@example.test",
        template: { name: "receipt", variables: { name: "x" } },
      },
    });
    expect(missing.status).toBe(422);
    expect(missing.json.error).toBe("template_render_error");
    expect(missing.json.message).toContain("total");
    const both = await api.request("POST", "/v1/send", {
      key,
      body: { from: "shop@acme.test", to: "b@example.test", subject: "x", template: { name: "receipt" } },
    });
    expect(both.status).toBe(400);
    expect(both.json.message).toContain("template");
    const unknown = await api.request("POST", "/v1/send", {
      key,
      body: { from: "shop@acme.test", to: "b@example.test", template: { name: "nope", variables: {} } },
    });
    expect(unknown.status).toBe(404);
  });
});
