import { loadConfig } from "@mailroom/core/config";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../api/src/app.ts";
import { injectAs, keyFor } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { TEST_KEK } from "../support/stack.ts";

/**
 * Issue 26, item 1: a NUL (or a lone surrogate) in any string the API accepts, in a body, a query or a path,
 * is a 400 `validation_error`, never a 500 from Postgres. The list of strings is derived from the OpenAPI
 * document the app serves (dev inbox routes included), so a route or field added later is swept too.
 */

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minItems?: number;
  format?: string;
  pattern?: string;
  $ref?: string;
}
interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string; schema?: Schema }[];
  body: Schema | undefined;
}

let db: TestDatabase;
let app: FastifyInstance;
let key: string;
let operations: Operation[] = [];
let components: Record<string, Schema> = {};
let realIds: Record<string, string> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  app = buildApp({
    config: loadConfig({
      MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
      MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
      MAILROOM_RATE_LIMIT_PER_KEY: "0",
      MAILROOM_RATE_LIMIT_PER_ACCOUNT: "0",
    }),
    pool: db.pool,
    logger: createLogger({ level: "silent", name: "test" }),
    metrics: createApiMetrics(),
    kek: TEST_KEK,
  });
  await app.ready();
  key = await keyFor(db, "default", ["send", "domains", "templates", "webhooks", "audit", "keys"]);
  const doc = (await app.inject({ method: "GET", url: "/v1/openapi.json" })).json() as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components?: { schemas?: Record<string, Schema> };
  };
  components = doc.components?.schemas ?? {};
  operations = Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: p,
      parameters: (op.parameters as Operation["parameters"] | undefined) ?? [],
      body: (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.[
        "application/json"
      ]?.schema,
    })),
  );
  // Real resources, so a path with a NUL elsewhere still names rows behind the route.
  const template = await injectAs(app, key, "POST", "/v1/templates", { name: "t", subject: "s", text: "x" });
  const hook = await injectAs(app, key, "POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook" });
  const email = await injectAs(app, key, "POST", "/v1/send", {
    from: "a@acme.test",
    to: "b@example.test",
    subject: "s",
    text: "t",
  });
  realIds = { template: template.json().id, webhook: hook.json().id, email: email.json().messageId };
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const deref = (schema: Schema): Schema =>
  schema.$ref ? (components[schema.$ref.split("/").at(-1) ?? ""] ?? {}) : schema;

/** A plausible value for a schema: strings "x", the first enum value, required fields filled in. */
function sample(raw: Schema | undefined, depth = 0): unknown {
  if (!raw || depth > 6) return "x";
  const schema = deref(raw);
  if (schema.enum) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (variant) return sample(variant, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array")
    return Array.from({ length: schema.minItems ?? 1 }, () => sample(schema.items, depth + 1));
  if (type === "object" || schema.properties) {
    return Object.fromEntries(
      (schema.required ?? []).map((name) => [name, sample(schema.properties?.[name], depth + 1)]),
    );
  }
  if (schema.format === "date-time") return "2030-01-01T00:00:00Z";
  return "x";
}

/** Every body with exactly one string spot holding `bad`: each string field, free-form value and map key. */
function* poisoned(raw: Schema | undefined, bad: string, depth = 0): Generator<unknown> {
  if (!raw || depth > 6) {
    yield bad;
    yield { [`k${bad}`]: "v" };
    return;
  }
  const schema = deref(raw);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    for (const v of variants) yield* poisoned(v, bad, depth + 1);
    return;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "string") {
    yield schema.format === "date-time" ? `2030-01-01T00:00:00Z${bad}` : `a${bad}b`;
    return;
  }
  if (type === "array") {
    for (const item of poisoned(schema.items, bad, depth + 1)) yield [item];
    return;
  }
  if (type === "object" || schema.properties) {
    const base = sample(schema, depth) as Record<string, unknown>;
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      for (const value of poisoned(child, bad, depth + 1)) yield { ...base, [name]: value };
    }
    if (schema.additionalProperties !== false && schema.additionalProperties !== undefined) {
      const child = schema.additionalProperties === true ? undefined : schema.additionalProperties;
      yield { ...base, [`k${bad}`]: sample(child, depth + 1) };
      for (const value of poisoned(child, bad, depth + 1)) yield { ...base, k: value };
    }
  }
}

/** A path with each parameter a real id (or "x"), and `overrides` in place of some. */
function urlOf(operation: Operation, overrides: Record<string, string> = {}): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name in overrides) return overrides[name] as string;
    if (name === "version" || name === "index") return "1";
    if (operation.path.startsWith("/v1/templates")) return realIds.template ?? "x";
    if (operation.path.startsWith("/v1/webhooks")) return realIds.webhook ?? "x";
    if (operation.path.startsWith("/v1/emails")) return realIds.email ?? "x";
    if (operation.path.startsWith("/v1/domains")) return "acme.test";
    return "x";
  });
}

let requests = 0;
async function expectRefused(method: string, url: string, payload: unknown, what: string) {
  requests += 1;
  const res = await app.inject({
    method: method as "POST",
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(payload === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBe(400);
  expect(res.json(), what).toEqual({ error: "validation_error", message: expect.any(String) });
}

describe("a NUL in any string of any route (bodies, queries, paths) is a 400 validation_error", () => {
  it("covers the whole published interface", () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain("GET /v1/dev-inbox/messages/{id}");
  });

  it("refuses it in every path parameter", async () => {
    for (const operation of operations) {
      for (const p of operation.parameters.filter((x) => x.in === "path")) {
        const url = urlOf(operation, { [p.name]: "a%00b" });
        const body = operation.body ? sample(operation.body) : undefined;
        await expectRefused(operation.method, url, body, `${operation.method} ${url}`);
      }
    }
  });

  it("refuses it in every query parameter", async () => {
    for (const operation of operations) {
      for (const p of operation.parameters.filter((x) => x.in === "query")) {
        const url = `${urlOf(operation)}?${p.name}=${encodeURIComponent("a\u0000b")}`;
        await expectRefused(operation.method, url, undefined, `${operation.method} ${url}`);
      }
    }
  });

  it("refuses it, and a lone surrogate, in every string of every body, at any depth, keys included", async () => {
    let bodies = 0;
    for (const operation of operations.filter((o) => o.body)) {
      for (const bad of ["\u0000", "\ud800"]) {
        for (const body of poisoned(operation.body, bad)) {
          bodies += 1;
          await expectRefused(
            operation.method,
            urlOf(operation),
            body,
            `${operation.method} ${operation.path} ${JSON.stringify(body).slice(0, 200)}`,
          );
        }
      }
    }
    expect(bodies).toBeGreaterThan(100);
  });

  it("the 20 inputs issue 26 found answering 500, named", async () => {
    const cases: [string, string, unknown][] = [
      ["POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook", description: "a\u0000b" }],
      ["POST", "/v1/webhooks", { url: "http://127.0.0.1:9/ho\u0000ok" }],
      ["PATCH", `/v1/webhooks/${realIds.webhook}`, { description: "a\u0000b" }],
      ["POST", "/v1/templates", { name: "n", subject: "s", text: "x", description: "a\u0000b" }],
      ["POST", "/v1/send", { from: "a@acme.test", to: "b@example.test", template: { name: "t\u0000" } }],
      [
        "POST",
        "/v1/send",
        { from: "a@acme.test", to: "b@example.test", template: { name: "t", variables: { "a\u0000": "v" } } },
      ],
      [
        "POST",
        "/v1/send",
        { from: "a@acme.test", to: "b@example.test", template: { name: "t", variables: { a: "v\u0000" } } },
      ],
      ["POST", "/v1/suppressions", { address: "s@example.test", detail: "a\u0000b" }],
      ["GET", "/v1/emails?category=a%00b", undefined],
      ["GET", "/v1/suppressions?after=a%00b", undefined],
    ];
    for (const [method, url, body] of cases) await expectRefused(method, url, body, `${method} ${url}`);
    process.stdout.write(`NUL sweep: ${requests} requests over ${operations.length} operations, all 400\n`);
  });
});
