import { loadConfig } from "@mailroom/core/config";
import { createKey, type Scope } from "@mailroom/core/keys";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../api/src/app.ts";
import type { TestDatabase } from "./db.ts";
import { TEST_KEK } from "./stack.ts";

/** The API as a Fastify instance on a test database, for `inject` tests where TLS adds nothing. */
export async function startTestApp(
  db: TestDatabase,
  env: Record<string, string> = {},
): Promise<FastifyInstance> {
  const app = buildApp({
    config: loadConfig(env),
    pool: db.pool,
    logger: createLogger({ level: "silent", name: "test" }),
    metrics: createApiMetrics(),
    kek: TEST_KEK,
  });
  await app.ready();
  return app;
}

/** A key for tests, full string only. */
export async function keyFor(db: TestDatabase, account: string, scopes: Scope[]): Promise<string> {
  return (await createKey(db.pool, { account, scopes, expires: "never" })).fullKey;
}

/** One JSON request through `inject`, authenticated with `key`. */
export function injectAs(
  app: FastifyInstance,
  key: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  body?: unknown,
) {
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}
