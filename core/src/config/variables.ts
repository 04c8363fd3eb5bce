import { CONFIG_DEFAULTS } from "./config.ts";

/** The commands of the `mailroom` program, as far as configuration goes. */
export type ProgramName = "run" | "api" | "worker" | "smtp" | "operator" | "migrate" | "keys" | "apply";

const DB: ProgramName[] = ["run", "api", "worker", "smtp", "operator", "migrate", "keys", "apply"];
const RUNNING: ProgramName[] = ["run", "api", "worker", "smtp", "operator"];
const API: ProgramName[] = ["run", "api"];
/** What SMTP submission shares with the API: its certificate, limits, key rules and from-domain rule. */
const SENDING: ProgramName[] = ["run", "api", "smtp"];
const SMTP: ProgramName[] = ["run", "smtp"];
const WORKER: ProgramName[] = ["run", "worker"];
const BOTH: ProgramName[] = ["run", "api", "worker"];
/** The programs that start tracing (cli/src/commands/program-actions.ts and run). */
const TRACED: ProgramName[] = [...BOTH, "smtp"];

/**
 * Who reads each variable, with a one-line summary for `--help` (.env.example explains each one in full).
 * config.test.ts fails when a variable of the schema is missing here.
 */
export const VARIABLES: Readonly<Record<string, { programs: ProgramName[]; help: string }>> = {
  MAILROOM_DATA_DIR: { programs: DB, help: "local state: embedded Postgres, TLS, inbox" },
  DATABASE_URL: { programs: DB, help: "Postgres URL; unset: the embedded Postgres" },
  DATABASE_READ_URL: { programs: ["api"], help: "replica for log reads when fresh; unset: DATABASE_URL" },
  MAILROOM_DATABASE_POOL_SIZE: { programs: DB, help: "connections per program" },
  MAILROOM_EMBEDDED_PG_PORT: { programs: DB, help: "port of the embedded Postgres" },
  MAILROOM_API_HOST: { programs: API, help: "address of the HTTPS API" },
  MAILROOM_API_PORT: { programs: API, help: "port of the HTTPS API" },
  MAILROOM_TLS_CERT_FILE: { programs: SENDING, help: "PEM certificate chain (run: a local CA)" },
  MAILROOM_TLS_KEY_FILE: { programs: SENDING, help: "PEM private key" },
  MAILROOM_TLS_RELOAD_SECONDS: { programs: SENDING, help: "re-read the TLS files this often; 0: never" },
  MAILROOM_INTERNAL_HOST: { programs: RUNNING, help: "address of /metrics, /healthz, /readyz" },
  MAILROOM_API_INTERNAL_PORT: { programs: API, help: "the API's internal port" },
  MAILROOM_BODY_LIMIT_BYTES: { programs: SENDING, help: "largest request body" },
  MAILROOM_BATCH_CONCURRENCY: { programs: API, help: "batch requests parsed at once; others wait" },
  MAILROOM_RATE_LIMIT_PER_KEY: { programs: SENDING, help: "requests per second per key; 0: off" },
  MAILROOM_RATE_LIMIT_PER_ACCOUNT: { programs: SENDING, help: "requests per second per account; 0: off" },
  MAILROOM_IDEMPOTENCY_RETENTION_HOURS: { programs: SENDING, help: "how long an idempotencyKey is kept" },
  MAILROOM_SUBMISSION_ENABLED: { programs: SMTP, help: "open the submission door (587/465-style ports)" },
  MAILROOM_SUBMISSION_HOST: { programs: SMTP, help: "address of the SMTP submission ports" },
  MAILROOM_SUBMISSION_PORT: { programs: SMTP, help: "SMTP submission with STARTTLS (587-style)" },
  MAILROOM_SUBMISSION_TLS_PORT: { programs: SMTP, help: "SMTP submission with implicit TLS (465-style)" },
  MAILROOM_SUBMISSION_TIMEOUT_SECONDS: { programs: SMTP, help: "idle SMTP client disconnected after" },
  MAILROOM_SMTP_INTERNAL_PORT: { programs: SMTP, help: "the SMTP program's internal port" },
  MAILROOM_EMAIL_RETENTION_DAYS: {
    programs: WORKER,
    help: "finished emails and webhook events are purged after this many days; 0: never",
  },
  MAILROOM_AUDIT_RETENTION_DAYS: {
    programs: WORKER,
    help: "audit rows are purged after this many days; 0: never",
  },
  MAILROOM_STATS_RETENTION_DAYS: {
    programs: WORKER,
    help: "the overview's hourly counters are purged after this many days; 0: never",
  },
  MAILROOM_WORKER_CONCURRENCY: { programs: WORKER, help: "jobs one worker runs at once" },
  MAILROOM_WORKER_BACKGROUND_CONCURRENCY: { programs: WORKER, help: "webhook and periodic job slots" },
  MAILROOM_WORKER_LOCAL_QUEUE_SIZE: { programs: WORKER, help: "delivery jobs fetched ahead of the slots" },
  MAILROOM_WORKER_LANES: {
    programs: WORKER,
    help: "lanes this process runs: delivery, reserved, background (default all)",
  },
  MAILROOM_WORKER_RESERVED_CONCURRENCY: {
    programs: WORKER,
    help: "delivery slots for accounts within their fair share",
  },
  MAILROOM_WORKER_INTERNAL_PORT: { programs: WORKER, help: "the worker's internal port" },
  MAILROOM_WORKER_HEARTBEAT_SECONDS: { programs: WORKER, help: "how often a worker says it is alive" },
  MAILROOM_WORKER_DEAD_AFTER_SECONDS: { programs: WORKER, help: "silence after which its jobs are retried" },
  MAILROOM_SMTP_URL: {
    programs: WORKER,
    help: "relay: smtp://host:port or smtps://user:pass@host; unset: the local capture",
  },
  MAILROOM_SMTP_CAPTURE_PORT: { programs: ["run"], help: "port of the local SMTP capture" },
  MAILROOM_DELIVERY_MODE: { programs: WORKER, help: "relay (via the SMTP URL) or direct (to MX hosts)" },
  MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN: {
    programs: WORKER,
    help: "direct: sessions per destination (an MX host of no group)",
  },
  MAILROOM_DIRECT_ALLOWED_CIDRS: { programs: WORKER, help: "direct: private ranges an MX may be in" },
  MAILROOM_DIRECT_MX_PORT: { programs: WORKER, help: "direct: port of MX hosts (25; tests and labs only)" },
  MAILROOM_DIRECT_MTA_STS_PORT: {
    programs: WORKER,
    help: "direct: port of MTA-STS policy hosts (443; tests and labs only)",
  },
  MAILROOM_SHAPING_MESSAGES_PER_CONNECTION: { programs: WORKER, help: "direct: messages per session" },
  MAILROOM_SHAPING_RATE_PER_MINUTE: {
    programs: WORKER,
    help: "direct: transactions/min per MX host; 0: any",
  },
  MAILROOM_SHAPING_PROVIDERS: { programs: WORKER, help: "direct: provider groups (JSON); unset: built in" },
  MAILROOM_SHAPING_BACKOFF_SECONDS: { programs: WORKER, help: "direct: pause after a rate-limit reply" },
  MAILROOM_SHAPING_BACKOFF_MAX_SECONDS: { programs: WORKER, help: "direct: longest pause, doubling" },
  MAILROOM_SHAPING_MAX_WAIT_SECONDS: { programs: WORKER, help: "direct: wait for a slot, then defer" },
  MAILROOM_TLS_EXTRA_CA_FILE: {
    programs: WORKER,
    help: "CAs trusted besides the system's (MX, MTA-STS, relay)",
  },
  MAILROOM_RELAY_ALLOW_UNVERIFIED_TLS: { programs: WORKER, help: "relay: accept an unverified certificate" },
  MAILROOM_RETRY_HORIZON_SECONDS: { programs: WORKER, help: "retry temporary failures this long" },
  MAILROOM_RETRY_BASE_SECONDS: { programs: WORKER, help: "first retry delay, doubled each time" },
  MAILROOM_SIMULATOR_DOMAIN: {
    programs: [...SENDING, "worker"],
    help: "the mailbox simulator's domain (delivered@, bounced@ …), or off",
  },
  MAILROOM_SIMULATOR_RETRY_SECONDS: { programs: WORKER, help: "retry delay of soft-bounced@ simulator mail" },
  MAILROOM_SIMULATOR_DELAY_SECONDS: { programs: WORKER, help: "how long delayed@ takes to answer 250" },
  MAILROOM_TLSRPT_FROM: { programs: WORKER, help: "From of daily TLS reports (RFC 8460); unset: none sent" },
  MAILROOM_TLSRPT_KEY_ID: { programs: WORKER, help: "id of the API key whose account sends TLS reports" },
  MAILROOM_TLSRPT_ORGANIZATION: {
    programs: WORKER,
    help: "TLS reports' organization-name; default: From's domain",
  },
  MAILROOM_TLSRPT_CONTACT: { programs: WORKER, help: "TLS reports' contact-info; default: the From address" },
  MAILROOM_OIDC_ISSUER: { programs: API, help: "OpenID Connect issuer for people's sign-in; unset: off" },
  MAILROOM_OIDC_CLIENT_ID: { programs: API, help: "the console's client id at the provider" },
  MAILROOM_OIDC_CLIENT_SECRET: {
    programs: API,
    help: "the client secret (confidential client); unset: public",
  },
  MAILROOM_OIDC_REDIRECT_URI: { programs: API, help: "https://<api host>/console/, as registered" },
  MAILROOM_OIDC_SCOPES: { programs: API, help: "scopes asked of the provider" },
  MAILROOM_OIDC_GROUPS_CLAIM: { programs: API, help: "the claim listing a person's groups" },
  MAILROOM_OIDC_ROLES: { programs: API, help: "JSON: [{group, account, scopes}] for people's keys" },
  MAILROOM_OIDC_IDLE_TIMEOUT_SECONDS: {
    programs: API,
    help: "a person's key is revoked when idle this long",
  },
  MAILROOM_OIDC_RECHECK_SECONDS: { programs: API, help: "ask the provider for a person's groups this often" },
  MAILROOM_DNS_SERVERS: {
    programs: ["run", "api", "worker", "operator"],
    help: "host:port,… for DNS; unset: system resolver",
  },
  MAILROOM_DNS_CACHE_SECONDS: { programs: WORKER, help: "direct: longest reuse of a DNS answer" },
  MAILROOM_DNS_VALIDATES_DNSSEC: { programs: WORKER, help: "direct: the resolver validates DNSSEC (DANE)" },
  MAILROOM_KEY_ENCRYPTION_KEY: {
    programs: ["run", "api", "worker", "operator", "apply"],
    help: "DKIM key-encryption key: 32 bytes, base64",
  },
  MAILROOM_KEY_ENCRYPTION_KEY_FILE: {
    programs: ["run", "api", "worker", "operator", "apply"],
    help: "a file holding that key",
  },
  MAILROOM_HOSTNAME: { programs: [...BOTH, "smtp"], help: "host name of generated Message-IDs" },
  MAILROOM_ALLOW_UNVERIFIED_FROM: { programs: SENDING, help: "accept any from-domain (run: true)" },
  MAILROOM_OPERATOR_NAMESPACE: {
    programs: ["operator"],
    help: "namespaces to watch, comma-separated; unset: all",
  },
  MAILROOM_OPERATOR_LEASE_NAME: { programs: ["operator"], help: "name of the leader Lease" },
  MAILROOM_OPERATOR_LEASE_NAMESPACE: { programs: ["operator"], help: "where the leader Lease lives" },
  MAILROOM_OPERATOR_IDENTITY: { programs: ["operator"], help: "name in the Lease; unset: host name" },
  MAILROOM_OPERATOR_OWNER_REFERENCES: { programs: ["operator"], help: "generated Secrets owned by resource" },
  MAILROOM_OPERATOR_INTERNAL_PORT: { programs: ["operator"], help: "the operator's internal port" },
  MAILROOM_WEBHOOK_ALLOWED_CIDRS: {
    programs: ["run", "api", "worker", "operator"],
    help: "private ranges receivers may be in (run: loopback)",
  },
  MAILROOM_WEBHOOK_TIMEOUT_MS: { programs: WORKER, help: "timeout of one webhook POST" },
  MAILROOM_WEBHOOK_DISABLE_AFTER_HOURS: { programs: WORKER, help: "disable an endpoint failing this long" },
  MAILROOM_WEBHOOK_RETRY_SCHEDULE_MS: { programs: WORKER, help: "delays between attempts, comma-separated" },
  MAILROOM_INBOUND_ENABLED: { programs: SMTP, help: "open the inbound door (bounce receiver)" },
  MAILROOM_INBOUND_SMTP_HOST: { programs: SMTP, help: "address of the inbound (bounce) SMTP" },
  MAILROOM_INBOUND_SMTP_PORT: { programs: SMTP, help: "port of the inbound (bounce) SMTP" },
  MAILROOM_INBOUND_MAX_BYTES: { programs: SMTP, help: "largest bounce report accepted" },
  MAILROOM_INBOUND_MX_HOST: {
    programs: ["run", "api", "smtp", "operator"],
    help: "MX host of the bounce domains (the receiver greets with it)",
  },
  MAILROOM_INBOUND_REPORT_RETENTION_HOURS: { programs: WORKER, help: "keep processed reports this long" },
  MAILROOM_SPF_MECHANISMS: { programs: ["run", "api", "operator"], help: "SPF record of the bounce domains" },
  MAILROOM_LOG_LEVEL: {
    programs: ["run", "api", "worker", "smtp", "operator", "apply"],
    help: "fatal … trace, silent",
  },
  MAILROOM_OTEL_EXPORTER: { programs: TRACED, help: "traces: none, otlp or console" },
  OTEL_EXPORTER_OTLP_ENDPOINT: { programs: TRACED, help: "OTLP collector URL" },
  OTEL_SERVICE_NAME: { programs: TRACED, help: "service name of the traces" },
};

/** The `Environment:` section of a command's `--help`: what it reads, with each default. */
export function environmentHelp(program: ProgramName): string {
  const rows = Object.entries(VARIABLES)
    .filter(([, v]) => v.programs.includes(program))
    .map(([name, v]) => {
      const value = CONFIG_DEFAULTS[name as keyof typeof CONFIG_DEFAULTS];
      return { name, help: v.help, value: value === undefined ? "unset" : String(value) };
    });
  const width = Math.max(...rows.map((r) => r.name.length));
  const helpWidth = Math.max(...rows.map((r) => r.help.length));
  return [
    "",
    "Environment (default in brackets). A .env file in the working directory is read too; a variable set",
    "in the real environment wins over it. .env.example explains every variable.",
    ...rows.map((r) => `  ${r.name.padEnd(width)}  ${r.help.padEnd(helpWidth)}  [${r.value}]`),
  ].join("\n");
}
