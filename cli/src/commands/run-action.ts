import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "@mailroom/core/config";
import { createPool, endPool, migrate } from "@mailroom/core/db";
import { ensureLocalKek, loadKek } from "@mailroom/core/domains";
import { createLogger, type Logger, startTracing } from "@mailroom/core/telemetry";
import { ensureLocalCertificates, readTlsFiles } from "@mailroom/core/tls";
import { loadProgramConfig } from "../config.ts";
import { openDatabase } from "../database.ts";
import { say, step } from "../output.ts";
import { startApiProgram, startSmtpProgram, startWorkerProgram } from "../programs.ts";
import { startSmtpCapture, storeByMessageId } from "../smtp-capture.ts";
import { stopOnSignal } from "./lifecycle.ts";

/** `mailroom run`: everything in one process, for local use. */
export async function runLocal(): Promise<void> {
  // Local runs accept any from-domain unless the environment says otherwise.
  // Webhook receivers on the developer's own machine are allowed.
  const config = loadProgramConfig({
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8,::1/128",
  });
  const logger = createLogger({ level: config.log.level, name: "mailroom" });
  const tracing = await startTracing({
    serviceName: config.telemetry.serviceName ?? "mailroom",
    exporter: config.telemetry.exporter,
    otlpEndpoint: config.telemetry.otlpEndpoint,
  });
  step(`data directory ${config.dataDir}`);
  // Stops run newest first: on Ctrl-C, and on a failed start so nothing is left running.
  const stops: Array<() => Promise<void>> = [() => tracing.shutdown()];
  const stopAll = async () => {
    // One failed stop must not keep the others (and Postgres, last) from stopping; it is said, not hidden.
    for (const stop of stops.reverse()) {
      await stop().catch((error: unknown) => say(`mailroom: while stopping: ${(error as Error).message}`));
    }
  };
  let ready: Awaited<ReturnType<typeof startAll>>;
  try {
    ready = await startAll(config, logger, stops);
  } catch (error) {
    say(`mailroom: could not start: ${error instanceof Error ? error.message : String(error)}`);
    if ((error as { code?: string } | undefined)?.code === "EADDRINUSE") {
      say(
        "  A port is taken: is another `mailroom run` going? Ports come from MAILROOM_*_PORT (.env.example).",
      );
    }
    await stopAll();
    process.exit(1);
  }
  const { api, worker, smtp, capture, tls } = ready;
  const base = `https://localhost:${config.api.port}`;
  say(
    [
      "",
      "Mailroom is running.",
      ...api.describe.map((l) => `  ${l}`),
      ...worker.describe.map((l) => `  ${l}`),
      ...smtp.describe.map((l) => `  ${l}`),
      capture ? `  SMTP capture smtp://127.0.0.1:${capture.port} → each account's dev inbox` : "",
      capture ? `  Dev inbox  ${base}/console/#/inbox (sign in with a key that has the send scope)` : "",
      `  CA         ${tls.caCertFile}`,
      `  Postgres   ${config.database.url ? "DATABASE_URL" : path.join(config.dataDir, "postgres")}`,
      "",
      "Next steps, in another terminal:",
      "  KEY=$(npm exec --no -- mailroom keys create --scopes send)",
      `  curl --cacert ${shown(tls.caCertFile)} ${base}/v1/send \\`,
      '    -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\',
      `    -d '{"from":"Acme <hello@acme.test>","to":"you@example.test","subject":"Hi","text":"It works."}'`,
      ...(config.submission.enabled
        ? [
            "  # or over SMTP (any username, the key as password; Grafana, GitLab, … the same way):",
            `  swaks --server 127.0.0.1:${config.submission.port} -tls --tls-ca-path ${shown(tls.caCertFile)} \\`,
            '    --auth PLAIN --auth-user mailroom --auth-password "$KEY" \\',
            "    --from hello@acme.test --to you@example.test --header 'Subject: Hi' --body 'It works.'",
          ]
        : []),
      `  curl --cacert ${shown(tls.caCertFile)} -H "Authorization: Bearer $KEY" ${base}/v1/dev-inbox/messages`,
      "",
      `${fromDomainNote(config)} Ctrl-C stops everything; data stays in the data directory.`,
      "",
    ]
      .filter((l, i, all) => l !== "" || all[i - 1] !== "")
      .join("\n"),
  );
  stopOnSignal([stopAll]);
}

/** What the banner says about from-domains: what this run's configuration does, not what runs usually do. */
export function fromDomainNote(config: Pick<Config, "sending">): string {
  return config.sending.allowUnverifiedFrom
    ? "This run accepts any from-domain (MAILROOM_ALLOW_UNVERIFIED_FROM=false requires verified domains)."
    : "This run sends only from verified domains (MAILROOM_ALLOW_UNVERIFIED_FROM=false).";
}

async function startAll(config: Config, logger: Logger, stops: Array<() => Promise<void>>) {
  const db = await openDatabase(config, step);
  stops.push(() => db.stop());
  step("applying migrations …");
  const { applied } = await migrate({ url: db.url, log: step });
  step(applied.length > 0 ? `applied ${applied.length} migration(s)` : "schema up to date");
  const tlsDir = path.join(config.dataDir, "tls");
  const tls = await ensureLocalCertificates(tlsDir, ["localhost", "127.0.0.1", "::1"]);
  step(tls.created ? `created local TLS certificates in ${tlsDir}` : `using TLS certificates in ${tlsDir}`);
  const smtpUrl = new URL(config.smtp.url);
  const local = smtpUrl.hostname === "127.0.0.1" && Number(smtpUrl.port) === config.smtp.capturePort;
  // The capture's own small pool: it looks up whose email each captured message is (the dev inbox is scoped).
  const capturePool = local
    ? createPool({ url: db.url, max: 2, applicationName: "mailroom-capture" })
    : undefined;
  if (capturePool) stops.push(() => endPool(capturePool));
  const capture = capturePool
    ? await startSmtpCapture({
        host: "127.0.0.1",
        port: config.smtp.capturePort,
        store: storeByMessageId(capturePool),
      })
    : undefined;
  if (capture) stops.push(() => capture.close());
  const kek = await localKek(config);
  const worker = await startWorkerProgram(config, db.url, logger, kek);
  stops.push(() => worker.stop());
  const material = await readTlsFiles(tls);
  const api = await startApiProgram(config, db.url, logger, kek, material);
  stops.push(() => api.stop());
  const smtp = await startSmtpProgram(config, db.url, logger, material);
  stops.push(() => smtp.stop());
  return { api, worker, smtp, capture, tls };
}

/** The configured key-encryption key, else the local one under the data directory (created once). */
export async function localKek(config: Config): Promise<Buffer> {
  const configured = await loadKek(config);
  if (configured) return configured;
  const { file, created } = await ensureLocalKek(config.dataDir);
  if (created) step(`created a key-encryption key for DKIM keys at ${file}`);
  return Buffer.from((await readFile(file, "utf8")).trim(), "base64");
}

/** A path as short as it can be shown: relative when under the working directory. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") ? file : relative;
}
