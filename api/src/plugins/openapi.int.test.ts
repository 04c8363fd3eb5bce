import SwaggerParser from "@apidevtools/swagger-parser";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp } from "../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";

let db: TestDatabase;
let app: FastifyInstance;
beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db);
});
afterAll(async () => {
  await app.close();
  await db.drop();
});

describe("GET /v1/openapi.json", () => {
  it("serves a valid OpenAPI 3.1 document of every route, without a key", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    // An independent validator: throws on any structural or schema error in the document.
    await SwaggerParser.validate(structuredClone(doc) as never);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      "POST /v1/send",
      "POST /v1/send/batch",
      "GET /v1/emails",
      "GET /v1/emails/{id}",
      "POST /v1/emails/{id}/cancel",
      "PATCH /v1/emails/{id}",
      "POST /v1/domains",
      "GET /v1/domains/{domain}",
      "POST /v1/domains/{domain}/verify",
      "GET /v1/suppressions",
      "POST /v1/templates",
      "POST /v1/webhooks",
    ]) {
      expect(operations).toContain(expected);
    }
    expect(operations.some((o) => o.includes("openapi.json"))).toBe(false);
  });
});

// Issue 35 item 6: the published interface, tidy.
describe("the published interface", () => {
  it("declares no required body for rotate-secret, and each operation's scope as its bearer role", async () => {
    const doc = (await app.inject({ method: "GET", url: "/v1/openapi.json" })).json() as {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean }; security?: unknown }>>;
    };
    expect(doc.paths["/v1/webhooks/{id}/rotate-secret"]?.post?.requestBody?.required).toBe(false);
    expect(doc.paths["/v1/webhooks"]?.post?.requestBody?.required).toBe(true);
    expect(doc.paths["/v1/webhooks"]?.post?.security).toEqual([{ bearer: ["webhooks"] }]);
    expect(doc.paths["/v1/key"]?.get?.security).toEqual([{ bearer: [] }]);
  });

  it('publishes `limit` and `version` as integers (a generated client sends `limit: 5`, not "5")', async () => {
    const doc = (await app.inject({ method: "GET", url: "/v1/openapi.json" })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string; schema: { type: string } }[] }>>;
    };
    const param = (p: string, name: string) =>
      doc.paths[p]?.get?.parameters?.find((parameter) => parameter.name === name)?.schema.type;
    for (const p of ["/v1/emails", "/v1/templates", "/v1/suppressions", "/v1/webhooks/{id}/deliveries"]) {
      expect(param(p, "limit"), p).toBe("integer");
    }
    expect(param("/v1/templates/{id}/versions/{version}", "version")).toBe("integer");
  });

  it("sends a browser opening the API's root to the console, and API clients a JSON 404", async () => {
    const browser = await app.inject({
      method: "GET",
      url: "/",
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe("/console/");
    for (const accept of ["application/json", "*/*", "text/html;q=0, application/json"]) {
      const client = await app.inject({ method: "GET", url: "/", headers: { accept } });
      expect(client.statusCode, accept).toBe(404);
      expect(client.json(), accept).toMatchObject({ error: "not_found" });
    }
    const unknown = await app.inject({ method: "GET", url: "/v2/nothing", headers: { accept: "text/html" } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: "not_found" });
  });

  it("sends Strict-Transport-Security on every answer", async () => {
    for (const url of ["/v1/openapi.json", "/v1/emails", "/console/", "/nothing"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.headers["strict-transport-security"], url).toBe("max-age=31536000");
    }
  });
});
