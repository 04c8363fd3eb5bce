import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type components, createMailroomClient } from "../../api/src/client/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { httpsRequest } from "../support/https.ts";
import { type ApiStack, startApiStack } from "../support/stack.ts";

/**
 * The client generated from docs/openapi.json, against the real API over TLS. Its types come from the
 * document, so a route that changes without the document (or a document that changes without this test)
 * fails `make check-generated` or the type check.
 */
let db: TestDatabase;
let api: ApiStack;
let sendKey: string;
let templatesKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
  ({ fullKey: sendKey } = await createKey(db.pool, {
    account: "default",
    scopes: ["send"],
    expires: "never",
  }));
  ({ fullKey: templatesKey } = await createKey(db.pool, {
    account: "default",
    scopes: ["templates"],
    expires: "never",
  }));
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

/** A fetch that trusts the test CA, built on the tests' HTTPS helper. */
async function trustingFetch(request: Request): Promise<Response> {
  const headers = Object.fromEntries(request.headers.entries());
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
  const answer = await httpsRequest(request.url, {
    ca: api.ca,
    method: request.method,
    headers,
    ...(body ? { body } : {}),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === "string") responseHeaders.set(name, value);
  }
  return new Response(answer.status === 204 ? null : answer.text, {
    status: answer.status,
    headers: responseHeaders,
  });
}

const clientFor = (apiKey: string) =>
  createMailroomClient({ baseUrl: `https://localhost:${api.server.port}`, apiKey, fetch: trustingFetch });

describe("the generated TypeScript client", () => {
  it("sends an email and reads it back from the log, typed end to end", async () => {
    const client = clientFor(sendKey);
    const body: components["schemas"]["SendRequest"] = {
      from: "Acme <hello@acme.test>",
      to: "ann@example.test",
      subject: "Typed",
      text: "Sent through the generated client",
    };
    const sent = await client.POST("/v1/send", { body, headers: { "idempotency-key": "client-1" } });
    expect(sent.response.status).toBe(200);
    expect(sent.response.headers.get("ratelimit")).toMatch(/^"key";r=\d+;t=\d+$/);
    const messageId = sent.data?.messageId ?? "";
    expect(sent.data?.status).toBe("queued");

    const read = await client.GET("/v1/emails/{id}", { params: { path: { id: messageId } } });
    expect(read.data).toMatchObject({ id: messageId, subject: "Typed", status: "queued" });

    const again = await client.POST("/v1/send", { body, headers: { "idempotency-key": "client-1" } });
    expect(again.data).toEqual({ status: "duplicate", messageId });
  });

  it("creates, pages through and deletes templates, with 204 and the error shape typed", async () => {
    const client = clientFor(templatesKey);
    const created = await client.POST("/v1/templates", {
      body: { name: "typed-welcome", subject: "Hi {{name}}", text: "Hello {{name}}" },
    });
    expect(created.response.status).toBe(201);
    const id = created.data?.id ?? "";
    const page = await client.GET("/v1/templates", { params: { query: { limit: 1 } } });
    expect(page.data?.data.map((t) => t.id)).toEqual([id]);
    expect(page.data?.hasMore).toBe(false);

    const deleted = await client.DELETE("/v1/templates/{id}", { params: { path: { id } } });
    expect(deleted.response.status).toBe(204);
    const gone = await client.GET("/v1/templates/{id}", { params: { path: { id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ error: "not_found", message: expect.any(String) });

    const wrongScope = await clientFor(sendKey).GET("/v1/templates", {});
    expect(wrongScope.error?.error).toBe("insufficient_scope");
  });
});
