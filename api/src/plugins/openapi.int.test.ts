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
