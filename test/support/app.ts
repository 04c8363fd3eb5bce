import type { FastifyInstance } from "fastify";
import { buildApp } from "../../api/src/app.ts";
import { loadConfig } from "../../core/src/config/index.ts";
import { createLogger, createMetrics } from "../../core/src/telemetry/index.ts";
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
    metrics: createMetrics("api"),
    kek: TEST_KEK,
  });
  await app.ready();
  return app;
}
