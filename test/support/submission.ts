import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type Config, loadConfig } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import { createLogger, createSmtpMetrics, type Logger, type SmtpMetrics } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import type { SmtpDeps } from "../../smtp/src/deps.ts";
import { startSubmissionServers } from "../../smtp/src/index.ts";
import type { TestDatabase } from "./db.ts";

export interface SubmissionStack {
  /** The STARTTLS (587-style) and implicit-TLS (465-style) ports. */
  port: number;
  tlsPort: number;
  /** The CA that signed the servers' certificate, for clients that verify it. */
  ca: Buffer;
  caFile: string;
  config: Config;
  metrics: SmtpMetrics;
  close(): Promise<void>;
}

/** The real submission servers on ephemeral loopback ports, with certificates from the local CA code. */
export async function startSubmissionStack(
  db: TestDatabase,
  options: {
    env?: Record<string, string>;
    pool?: Pool;
    logger?: Logger;
    now?: () => Date;
    authThrottle?: SmtpDeps["authThrottle"];
  } = {},
): Promise<SubmissionStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-smtp-tls-"));
  const tls = await ensureLocalCertificates(dir, ["localhost", "127.0.0.1"]);
  // Most tests send from made-up domains; the from-domain check has tests of its own that turn it back on.
  const config = loadConfig({
    DATABASE_URL: db.url,
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    ...options.env,
  });
  const metrics = createSmtpMetrics();
  const servers = await startSubmissionServers({
    config,
    pool: options.pool ?? db.pool,
    logger: options.logger ?? createLogger({ level: "silent", name: "test-smtp" }),
    metrics,
    tls: { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
    ...(options.now ? { now: options.now } : {}),
    ...(options.authThrottle ? { authThrottle: options.authThrottle } : {}),
  });
  return {
    port: servers.ports.submission,
    tlsPort: servers.ports.submissionTls,
    ca: await readFile(tls.caCertFile),
    caFile: tls.caCertFile,
    config,
    metrics,
    close: async () => {
      await servers.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
