import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { deriveVerpKey } from "@mailroom/core/bounces";
import { type Config, loadConfig } from "@mailroom/core/config";
import { createKey } from "@mailroom/core/keys";
import {
  type ApiMetrics,
  createApiMetrics,
  createLogger,
  createWorkerMetrics,
  type Logger,
  type WorkerMetrics,
} from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { afterAll, beforeAll } from "vitest";
import { type ApiServer, startApiServer } from "../../api/src/index.ts";
import { createSigner, createTransport } from "../../worker/src/index.ts";
import { startWorker, type WorkerHandle } from "../../worker/src/runner.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";
import { httpsRequest } from "./https.ts";

/** The key-encryption key every test stack shares, so API-created domains can be signed by the worker. */
export const TEST_KEK = Buffer.alloc(32, 7);

/** Collects every log line a logger writes, so tests can assert what never appears in logs. */
export function captureLogs(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });
  return { lines, logger: createLogger({ level: "trace", name: "test", destination }) };
}

export interface ApiStack {
  server: ApiServer;
  config: Config;
  metrics: ApiMetrics;
  ca: Buffer;
  request(
    method: string,
    route: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): ReturnType<typeof httpsRequest>;
  close(): Promise<void>;
}

/** The real API on an ephemeral TLS port, with certificates from the local CA code. */
export async function startApiStack(
  db: TestDatabase,
  options: { logger?: Logger; env?: Record<string, string>; now?: () => Date } = {},
): Promise<ApiStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-tls-"));
  const tls = await ensureLocalCertificates(dir, ["localhost", "127.0.0.1"]);
  // Most tests send from made-up domains; the from-domain check has tests of its own that turn it back on.
  const config = loadConfig({
    MAILROOM_API_PORT: "0",
    DATABASE_URL: db.url,
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    ...options.env,
  });
  const metrics = createApiMetrics();
  const server = await startApiServer(
    {
      config,
      pool: db.pool,
      logger: options.logger ?? createLogger({ level: "silent", name: "test" }),
      metrics,
      kek: TEST_KEK,
      ...(options.now ? { now: options.now } : {}),
    },
    { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
  );
  const ca = await readFile(tls.caCertFile);
  return {
    server,
    config,
    metrics,
    ca,
    request: (method, route, o = {}) =>
      httpsRequest(`https://localhost:${server.port}${route}`, {
        ca,
        method,
        body: o.body,
        headers: { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...o.headers },
      }),
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The real worker (graphile-worker + nodemailer) delivering to the given SMTP URL. */
export async function startWorkerStack(
  db: TestDatabase,
  smtpUrl: string,
  env: Record<string, string> = {},
  /**
   * `pollIntervalMs`: the runners' fallback poll (200 ms unless given; new jobs are announced anyway).
   * `reservedRescueAfterMs`: how long the reserved lane's jobs wait before this worker's delivery lane takes them.
   * `periodicJobs: false`: no periodic job runs (the purge would forget data older than its retention).
   */
  options: {
    logger?: Logger;
    signerTtlMs?: number;
    pollIntervalMs?: number;
    reservedRescueAfterMs?: number;
    periodicJobs?: boolean;
  } = {},
): Promise<WorkerHandle & { metrics: WorkerMetrics }> {
  const config = loadConfig({ DATABASE_URL: db.url, MAILROOM_SMTP_URL: smtpUrl, ...env });
  const metrics = createWorkerMetrics();
  const handle = await startWorker(
    {
      config,
      pool: db.pool,
      logger: options.logger ?? createLogger({ level: "silent", name: "test-worker" }),
      metrics,
      transport: createTransport(config, metrics),
      signer: createSigner(db.pool, TEST_KEK, options.signerTtlMs),
      verpKey: deriveVerpKey(TEST_KEK),
      kek: TEST_KEK,
    },
    {
      pollIntervalMs: options.pollIntervalMs ?? 200,
      ...(options.periodicJobs === undefined ? {} : { periodicJobs: options.periodicJobs }),
      ...(options.reservedRescueAfterMs === undefined
        ? {}
        : { reservedRescueAfterMs: options.reservedRescueAfterMs }),
    },
  );
  return { ...handle, metrics };
}

/**
 * For a test file of the sending routes: one database and one API for the file, and a `send`-scoped key of
 * the `default` account, handed to `use` before the first test; all closed after the last one.
 */
export function useSendApi(
  use: (stack: { db: TestDatabase; api: ApiStack; key: string }) => void,
  env: Record<string, string> = {},
): void {
  let db: TestDatabase | undefined;
  let api: ApiStack | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiStack(db, { env });
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    use({ db, api, key: fullKey });
  });
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });
}
