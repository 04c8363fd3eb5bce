import { loadConfig } from "@mailroom/core/config";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import pg from "pg";
import { buildApp } from "../app.ts";

/**
 * The OpenAPI document exactly as the API serves it, built without a database: the app is assembled on a
 * pool that never connects (nothing is queried until a request comes), asked for its document, and closed.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const pool = new pg.Pool({ max: 1 });
  const app = buildApp({
    config: loadConfig({}),
    pool,
    logger: createLogger({ level: "silent", name: "openapi" }),
    metrics: createApiMetrics(),
    kek: Buffer.alloc(32),
  });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await pool.end();
  }
}
