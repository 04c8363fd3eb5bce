import path from "node:path";
import { z } from "zod";
import { parseCidrList } from "../net/index.ts";
import { DEFAULT_RETRY_POLICY } from "../webhooks/schedule.ts";

/** Raised when an environment variable holds a value Mailroom cannot use. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const optionalPath = z.string().min(1).optional();
const cidrList = z
  .string()
  .refine((v) => {
    try {
      parseCidrList(v);
      return true;
    } catch {
      return false;
    }
  }, "a comma-separated list of CIDRs, e.g. 10.0.0.0/8,fd00::/8")
  .optional();

/**
 * Every environment variable Mailroom reads, with its default. `.env.example` documents the same list;
 * `config.test.ts` fails when the two drift apart.
 */
const envSchema = z.object({
  MAILROOM_DATA_DIR: z.string().min(1).default(".mailroom"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  MAILROOM_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  MAILROOM_EMBEDDED_PG_PORT: port.default(54329),

  MAILROOM_API_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_API_PORT: port.default(8443),
  MAILROOM_TLS_CERT_FILE: optionalPath,
  MAILROOM_TLS_KEY_FILE: optionalPath,
  MAILROOM_TLS_RELOAD_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
  MAILROOM_INTERNAL_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_API_INTERNAL_PORT: port.default(9464),
  MAILROOM_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  MAILROOM_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),

  MAILROOM_SUBMISSION_ENABLED: bool.default(true),
  MAILROOM_SUBMISSION_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_SUBMISSION_PORT: port.default(2587),
  MAILROOM_SUBMISSION_TLS_PORT: port.default(2465),
  MAILROOM_SUBMISSION_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(300),
  MAILROOM_SMTP_INTERNAL_PORT: port.default(9467),

  MAILROOM_RATE_LIMIT_PER_KEY: z.coerce.number().int().min(0).default(500),
  MAILROOM_RATE_LIMIT_PER_ACCOUNT: z.coerce.number().int().min(0).default(2000),
  MAILROOM_IDEMPOTENCY_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  MAILROOM_EMAIL_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),

  MAILROOM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  MAILROOM_WORKER_BACKGROUND_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(8),
  MAILROOM_WORKER_INTERNAL_PORT: port.default(9465),
  MAILROOM_WORKER_HEARTBEAT_SECONDS: z.coerce.number().min(0.1).max(60).default(5),
  MAILROOM_WORKER_DEAD_AFTER_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  MAILROOM_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .default("smtp://127.0.0.1:2525"),
  MAILROOM_SMTP_CAPTURE_PORT: port.default(2525),
  MAILROOM_DELIVERY_MODE: z.enum(["relay", "direct"]).default("relay"),
  MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN: z.coerce.number().int().min(1).max(100).default(5),
  MAILROOM_RETRY_HORIZON_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 3600),
  MAILROOM_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).default(60),
  MAILROOM_DNS_SERVERS: z
    .string()
    .regex(/^\s*[^,\s]+(\s*,\s*[^,\s]+)*\s*$/, "a comma-separated list of host:port")
    .optional(),
  MAILROOM_DNS_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  MAILROOM_KEY_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64-encoded")
    .optional(),
  MAILROOM_KEY_ENCRYPTION_KEY_FILE: optionalPath,
  MAILROOM_HOSTNAME: z.string().min(1).default("mailroom.localhost"),
  MAILROOM_ALLOW_UNVERIFIED_FROM: bool.default(false),

  MAILROOM_INBOUND_ENABLED: bool.default(true),
  MAILROOM_INBOUND_SMTP_HOST: z.string().min(1).default("127.0.0.1"),
  MAILROOM_INBOUND_SMTP_PORT: port.default(2526),
  MAILROOM_INBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  MAILROOM_INBOUND_MX_HOST: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}\.?$/i, "a host name")
    .optional(),
  MAILROOM_INBOUND_REPORT_RETENTION_HOURS: z.coerce.number().int().min(1).default(720),
  MAILROOM_SPF_MECHANISMS: z
    .string()
    .regex(
      /^\s*([+~?-]?(a|mx|ptr|(a|mx):\S+|ip4:\S+|ip6:\S+|include:\S+|exists:\S+)[\s,]*)+$/i,
      "SPF mechanisms separated by spaces or commas, e.g. include:_spf.relay.example ip4:203.0.113.7",
    )
    .optional(),

  MAILROOM_OPERATOR_NAMESPACE: z.string().min(1).optional(),
  MAILROOM_OPERATOR_LEASE_NAME: z.string().min(1).default("mailroom-operator"),
  MAILROOM_OPERATOR_LEASE_NAMESPACE: z.string().min(1).default("mailroom"),
  MAILROOM_OPERATOR_IDENTITY: z.string().min(1).optional(),
  MAILROOM_OPERATOR_OWNER_REFERENCES: bool.default(true),
  MAILROOM_OPERATOR_INTERNAL_PORT: port.default(9466),

  MAILROOM_WEBHOOK_ALLOWED_CIDRS: cidrList,
  MAILROOM_DIRECT_ALLOWED_CIDRS: cidrList,
  MAILROOM_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  MAILROOM_WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(0.001).default(120),
  MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "comma-separated delays in milliseconds, first one usually 0")
    .optional(),

  MAILROOM_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  MAILROOM_OTEL_EXPORTER: z.enum(["none", "otlp", "console"]).default("none"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});

export type EnvInput = Record<string, string | undefined>;

function buildConfig(e: z.infer<typeof envSchema>) {
  const dataDir = path.resolve(e.MAILROOM_DATA_DIR);
  if ((e.MAILROOM_TLS_CERT_FILE === undefined) !== (e.MAILROOM_TLS_KEY_FILE === undefined)) {
    throw new ConfigError(
      "MAILROOM_TLS_CERT_FILE and MAILROOM_TLS_KEY_FILE must be set together (or neither, to use the local CA)",
    );
  }
  if (
    e.MAILROOM_EMAIL_RETENTION_DAYS > 0 &&
    e.MAILROOM_EMAIL_RETENTION_DAYS * 24 < e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS
  ) {
    throw new ConfigError(
      `MAILROOM_EMAIL_RETENTION_DAYS (${e.MAILROOM_EMAIL_RETENTION_DAYS}) must cover MAILROOM_IDEMPOTENCY_RETENTION_HOURS ` +
        `(${e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS}): a retried request must not be answered with an email already purged`,
    );
  }
  return {
    dataDir,
    database: {
      url: e.DATABASE_URL,
      poolSize: e.MAILROOM_DATABASE_POOL_SIZE,
      embeddedPort: e.MAILROOM_EMBEDDED_PG_PORT,
    },
    internalHost: e.MAILROOM_INTERNAL_HOST,
    api: {
      host: e.MAILROOM_API_HOST,
      port: e.MAILROOM_API_PORT,
      internalPort: e.MAILROOM_API_INTERNAL_PORT,
      bodyLimitBytes: e.MAILROOM_BODY_LIMIT_BYTES,
      /** Batch requests read, parsed and committed at once; the others wait with their body unread. */
      batchConcurrency: e.MAILROOM_BATCH_CONCURRENCY,
      tlsReloadSeconds: e.MAILROOM_TLS_RELOAD_SECONDS,
      tls:
        e.MAILROOM_TLS_CERT_FILE && e.MAILROOM_TLS_KEY_FILE
          ? { certFile: e.MAILROOM_TLS_CERT_FILE, keyFile: e.MAILROOM_TLS_KEY_FILE }
          : undefined,
    },
    /** `mailroom smtp`: one program, two doors, each on or off (ADR 0019). */
    smtpProgram: { internalPort: e.MAILROOM_SMTP_INTERNAL_PORT },
    submission: {
      enabled: e.MAILROOM_SUBMISSION_ENABLED,
      host: e.MAILROOM_SUBMISSION_HOST,
      port: e.MAILROOM_SUBMISSION_PORT,
      tlsPort: e.MAILROOM_SUBMISSION_TLS_PORT,
      timeoutSeconds: e.MAILROOM_SUBMISSION_TIMEOUT_SECONDS,
    },
    limits: {
      rateLimit: { perKey: e.MAILROOM_RATE_LIMIT_PER_KEY, perAccount: e.MAILROOM_RATE_LIMIT_PER_ACCOUNT },
      idempotencyRetentionHours: e.MAILROOM_IDEMPOTENCY_RETENTION_HOURS,
      /** Finished emails (and their events, attachments and webhook events) are purged after this; 0: never. */
      emailRetentionDays: e.MAILROOM_EMAIL_RETENTION_DAYS,
    },
    worker: {
      concurrency: e.MAILROOM_WORKER_CONCURRENCY,
      backgroundConcurrency: e.MAILROOM_WORKER_BACKGROUND_CONCURRENCY,
      internalPort: e.MAILROOM_WORKER_INTERNAL_PORT,
      heartbeatSeconds: e.MAILROOM_WORKER_HEARTBEAT_SECONDS,
      deadAfterSeconds: e.MAILROOM_WORKER_DEAD_AFTER_SECONDS,
    },
    delivery: {
      mode: e.MAILROOM_DELIVERY_MODE,
      directMaxConnectionsPerDomain: e.MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN,
      directAllowedCidrs: e.MAILROOM_DIRECT_ALLOWED_CIDRS
        ? parseCidrList(e.MAILROOM_DIRECT_ALLOWED_CIDRS)
        : [],
      retry: {
        baseDelaySeconds: e.MAILROOM_RETRY_BASE_SECONDS,
        maxDelaySeconds: 4 * 3600,
        horizonSeconds: e.MAILROOM_RETRY_HORIZON_SECONDS,
      },
    },
    dns: {
      servers: (e.MAILROOM_DNS_SERVERS ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
      cacheSeconds: e.MAILROOM_DNS_CACHE_SECONDS,
    },
    keyEncryption: {
      key: e.MAILROOM_KEY_ENCRYPTION_KEY ? Buffer.from(e.MAILROOM_KEY_ENCRYPTION_KEY, "base64") : undefined,
      file: e.MAILROOM_KEY_ENCRYPTION_KEY_FILE,
    },
    smtp: {
      url: e.MAILROOM_SMTP_URL,
      capturePort: e.MAILROOM_SMTP_CAPTURE_PORT,
      hostname: e.MAILROOM_HOSTNAME,
    },
    sending: { allowUnverifiedFrom: e.MAILROOM_ALLOW_UNVERIFIED_FROM },
    inbound: {
      enabled: e.MAILROOM_INBOUND_ENABLED,
      host: e.MAILROOM_INBOUND_SMTP_HOST,
      port: e.MAILROOM_INBOUND_SMTP_PORT,
      maxBytes: e.MAILROOM_INBOUND_MAX_BYTES,
      reportRetentionHours: e.MAILROOM_INBOUND_REPORT_RETENTION_HOURS,
    },
    /** What the DNS records of a new domain say (core/src/domains/records.ts). */
    dnsRecords: {
      // No MX record unless the operator names the receiver's public host name.
      mxHost: e.MAILROOM_INBOUND_MX_HOST?.replace(/\.$/, "").toLowerCase(),
      spfMechanisms: e.MAILROOM_SPF_MECHANISMS
        ? e.MAILROOM_SPF_MECHANISMS.split(/[\s,]+/).filter(Boolean)
        : undefined,
    },
    operator: {
      // One namespace, or several comma-separated (the chart's operator.watchNamespaces); unset: all.
      namespaces: e.MAILROOM_OPERATOR_NAMESPACE?.split(",")
        .map((n) => n.trim())
        .filter(Boolean),
      leaseName: e.MAILROOM_OPERATOR_LEASE_NAME,
      leaseNamespace: e.MAILROOM_OPERATOR_LEASE_NAMESPACE,
      identity: e.MAILROOM_OPERATOR_IDENTITY,
      ownerReferences: e.MAILROOM_OPERATOR_OWNER_REFERENCES,
      internalPort: e.MAILROOM_OPERATOR_INTERNAL_PORT,
    },
    webhooks: {
      allowedCidrs: e.MAILROOM_WEBHOOK_ALLOWED_CIDRS ? parseCidrList(e.MAILROOM_WEBHOOK_ALLOWED_CIDRS) : [],
      timeoutMs: e.MAILROOM_WEBHOOK_TIMEOUT_MS,
      retryPolicy: {
        scheduleMs: e.MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS
          ? e.MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS.split(",").map((v) => Number(v.trim()))
          : DEFAULT_RETRY_POLICY.scheduleMs,
        disableAfterMs: e.MAILROOM_WEBHOOK_DISABLE_AFTER_HOURS * 3600 * 1000,
        maxRetryAfterMs: DEFAULT_RETRY_POLICY.maxRetryAfterMs,
      },
    },
    log: { level: e.MAILROOM_LOG_LEVEL },
    telemetry: {
      exporter: e.MAILROOM_OTEL_EXPORTER,
      otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
    },
  };
}

export type Config = Readonly<ReturnType<typeof buildConfig>>;

/** Each variable's default (undefined: unset), as parsed; `--help` shows them. */
export const CONFIG_DEFAULTS = envSchema.parse({});

/** The names of every variable `loadConfig` reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

function deepFreeze<T>(value: T): T {
  // A Buffer (the key-encryption key given inline) cannot be frozen: Object.freeze throws on typed arrays.
  if (value && typeof value === "object" && !ArrayBuffer.isView(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Parses the environment once into a frozen, validated config. Empty strings count as unset; a program may
 * supply its own defaults (e.g. `mailroom run` relaxes the from-domain check), which the environment overrides.
 * Throws a ConfigError naming every offending variable.
 */
export function loadConfig(env: EnvInput, programDefaults: EnvInput = {}): Config {
  const input: EnvInput = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name] === undefined || env[name] === "" ? programDefaults[name] : env[name];
    if (value !== undefined && value !== "") input[name] = value;
  }
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      const got = input[name] === undefined ? "" : ` (got ${JSON.stringify(input[name])})`;
      return `  ${name}: ${issue.message}${got}`;
    });
    throw new ConfigError(
      `invalid configuration:\n${lines.join("\n")}\nSee .env.example for every variable.`,
    );
  }
  return deepFreeze(buildConfig(parsed.data));
}
