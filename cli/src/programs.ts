import { deriveVerpKey } from "@mailroom/core/bounces";
import type { Config } from "@mailroom/core/config";
import { createReadRouter, endPool } from "@mailroom/core/db";
import { loadKek } from "@mailroom/core/domains";
import {
  createApiMetrics,
  createSmtpMetrics,
  createWorkerMetrics,
  type Logger,
  observeDatabaseState,
  observePool,
  observeTenants,
  startInternalServer,
} from "@mailroom/core/telemetry";
import { readTlsFiles, type TlsMaterial } from "@mailroom/core/tls";
import { openPool } from "./database.ts";

export interface Program {
  /** Where it can be reached, for the banner. */
  describe: string[];
  stop(): Promise<void>;
}

/**
 * Ready when a primary answers: during a failover the read-write address can lead to a standby for a moment
 * (one being promoted, or a primary being demoted), which answers a `select 1` but refuses every write.
 */
async function databaseReady(pool: {
  query(sql: string): Promise<{ rows: Array<{ writable?: boolean }> }>;
}): Promise<boolean> {
  try {
    const { rows } = await pool.query("select not pg_is_in_recovery() as writable");
    return rows[0]?.writable === true;
  } catch {
    return false;
  }
}

/** The key-encryption key the api and worker need; refuses to go on without one, saying how to set it. */
export async function requireKek(config: Config): Promise<Buffer> {
  const kek = await loadKek(config);
  if (!kek) {
    throw new Error(
      "no key-encryption key for DKIM private keys: set MAILROOM_KEY_ENCRYPTION_KEY (32 bytes, base64, e.g. " +
        "`openssl rand -base64 32`) or MAILROOM_KEY_ENCRYPTION_KEY_FILE",
    );
  }
  return kek;
}

/** The API program: HTTPS server plus its internal metrics/health port. */
export async function startApiProgram(
  config: Config,
  databaseUrl: string,
  logger: Logger,
  kek: Buffer,
  tls?: TlsMaterial,
): Promise<Program> {
  // Each program loads only its own package: the API pod never loads nodemailer or graphile-worker (~4 MB of
  // its memory), nor the worker pod Fastify.
  const { startApiServer } = await import("@mailroom/api");
  const pool = openPool(config, databaseUrl, "mailroom-api", (e) =>
    logger.warn({ err: e }, "idle client error"),
  );
  const metrics = createApiMetrics();
  observePool(metrics.registry, pool, config.database.poolSize);
  // Log and console reads go to the replica when it is fresh enough (ADR 0032); its pool only reads.
  const replica = config.database.readUrl
    ? openPool(config, config.database.readUrl, "mailroom-api-reads", (e) =>
        logger.warn({ err: e }, "idle replica client error"),
      )
    : undefined;
  const reads = createReadRouter({
    primary: pool,
    replica,
    onRead: (target) => metrics.dbReads.inc({ served_by: target }),
  });
  const material = tls ?? (config.api.tls ? await readTlsFiles(config.api.tls) : undefined);
  if (!material) {
    throw new Error(
      "the API needs TLS: set MAILROOM_TLS_CERT_FILE and MAILROOM_TLS_KEY_FILE (or use `mailroom run` locally)",
    );
  }
  const server = await startApiServer(
    {
      config,
      pool,
      logger: logger.child({ program: "api" }),
      metrics,
      kek,
      reads,
    },
    material,
  );
  const internal = await startInternalServer({
    host: config.internalHost,
    port: config.api.internalPort,
    registry: metrics.registry,
    ready: () => databaseReady(pool),
  });
  return {
    describe: [
      `API        ${server.url}`,
      `Console    ${server.url}/console/`,
      `API metrics http://${config.internalHost}:${internal.port}/metrics`,
    ],
    stop: async () => {
      try {
        await server.close();
        await internal.close();
      } finally {
        await Promise.all([endPool(pool), replica ? endPool(replica) : undefined]);
      }
    },
  };
}

/** The worker program: graphile-worker with the deliver task, plus its internal port. */
export async function startWorkerProgram(
  config: Config,
  databaseUrl: string,
  logger: Logger,
  kek: Buffer,
): Promise<Program> {
  const { createSigner, createTransport, signingPlaceFor, startWorker } = await import("@mailroom/worker");
  // Each concurrent job holds a client while it records its outcome; keep a few spare for the runners
  // themselves (one LISTEN connection each, the heartbeat). Only the lanes this process runs count.
  const poolSize = Math.max(config.database.poolSize, config.worker.slots + 4);
  const pool = openPool(
    { ...config, database: { ...config.database, poolSize } },
    databaseUrl,
    "mailroom-worker",
    (e) => logger.warn({ err: e }, "idle client error"),
  );
  const metrics = createWorkerMetrics();
  observePool(metrics.registry, pool, poolSize);
  // The backlog, domain and endpoint gauges describe the whole installation: the worker exports them.
  // A process running only the reserved lane leaves them to the main workers: its scrapes cost no queries.
  if (config.worker.lanes.some((lane) => lane !== "reserved")) {
    observeDatabaseState(metrics.registry, pool);
    // Per-tenant figures and each sending domain's rates, labels bounded (issue 31 item 5, issue 29 item 4).
    observeTenants(metrics.registry, pool);
  }
  const dane = config.delivery.mode === "direct" && config.dns.validatesDnssec;
  metrics.daneValidating.set(dane ? 1 : 0);
  if (config.delivery.mode === "direct" && !dane) {
    // Said once, not per message: every MX is then judged by MTA-STS or opportunistic TLS alone.
    logger.warn(
      "DANE is not checked: MAILROOM_DNS_VALIDATES_DNSSEC is off (no validating resolver declared)",
    );
  }
  const worker = await startWorker({
    config,
    pool,
    logger: logger.child({ program: "worker" }),
    metrics,
    transport: createTransport(config, metrics),
    signer: createSigner(pool, kek, undefined, signingPlaceFor(config.worker.lanes)),
    verpKey: deriveVerpKey(kek),
    kek: kek,
  });
  const internal = await startInternalServer({
    host: config.internalHost,
    port: config.worker.internalPort,
    registry: metrics.registry,
    // Ready only while its runners really run: a worker whose runner ended (it is being restarted) or whose
    // database is away takes no job, and says so.
    ready: async () => worker.isRunning() && (await databaseReady(pool)),
  });
  const smtpTarget = new URL(config.smtp.url);
  const via =
    config.delivery.mode === "direct" ? "recipients' MX hosts" : `${smtpTarget.protocol}//${smtpTarget.host}`;
  return {
    describe: [
      `Worker     delivering via ${via}`,
      `Worker metrics http://${config.internalHost}:${internal.port}/metrics`,
    ],
    // The pool ends even when a step before it fails: its idle clients would outlive the program.
    stop: async () => {
      try {
        await worker.stop();
        await internal.close();
      } finally {
        await endPool(pool);
      }
    },
  };
}

/**
 * The SMTP program (ADR 0019): the doors the config opens, submission and the bounce receiver, behind one
 * internal port (metrics, health, readiness). It holds no DKIM key, so it needs no key-encryption key.
 * Submission needs the API's certificate; the receiver offers STARTTLS with it when there is one.
 */
export async function startSmtpProgram(
  config: Config,
  databaseUrl: string,
  logger: Logger,
  tls?: TlsMaterial,
): Promise<Program> {
  const { startSmtpDoors } = await import("@mailroom/smtp");
  const material = tls ?? (config.api.tls ? await readTlsFiles(config.api.tls) : undefined);
  const pool = openPool(config, databaseUrl, "mailroom-smtp", (e) =>
    logger.warn({ err: e }, "idle client error"),
  );
  const metrics = createSmtpMetrics();
  observePool(metrics.registry, pool, config.database.poolSize);
  let doors: Awaited<ReturnType<typeof startSmtpDoors>>;
  try {
    doors = await startSmtpDoors({
      config,
      pool,
      logger: logger.child({ program: "smtp" }),
      metrics,
      tls: material,
    });
  } catch (error) {
    await endPool(pool);
    throw error;
  }
  const internal = await startInternalServer({
    host: config.internalHost,
    port: config.smtpProgram.internalPort,
    registry: metrics.registry,
    ready: () => databaseReady(pool),
  });
  return {
    describe: [...doors.describe, `SMTP metrics http://${config.internalHost}:${internal.port}/metrics`],
    stop: async () => {
      try {
        await doors.close();
        await internal.close();
      } finally {
        await endPool(pool);
      }
    },
  };
}
