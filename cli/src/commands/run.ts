import path from "node:path";
import { readTlsFiles } from "@mailroom/api";
import { migrate } from "@mailroom/core/db";
import { createLogger, startTracing } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import type { Command } from "commander";
import { loadProgramConfig } from "../config.ts";
import { openDatabase } from "../database.ts";
import { say, step } from "../output.ts";
import { startApiProgram, startWorkerProgram } from "../programs.ts";
import { startSmtpCapture } from "../smtp-capture.ts";
import { stopOnSignal } from "./lifecycle.ts";

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description(
      "run Mailroom locally: embedded Postgres, HTTPS API with a local CA, worker, and an SMTP capture " +
        "that writes every message to <data dir>/inbox",
    )
    .action(async () => {
      // Local runs accept any from-domain unless the environment says otherwise.
      const config = loadProgramConfig({ MAILROOM_ALLOW_UNVERIFIED_FROM: "true" });
      const logger = createLogger({ level: config.log.level, name: "mailroom" });
      const tracing = startTracing({
        serviceName: config.telemetry.serviceName ?? "mailroom",
        exporter: config.telemetry.exporter,
        otlpEndpoint: config.telemetry.otlpEndpoint,
      });
      step(`data directory ${config.dataDir}`);
      const db = await openDatabase(config, step);
      step("applying migrations …");
      const { applied } = await migrate({ url: db.url, log: step });
      step(applied.length > 0 ? `applied ${applied.length} migration(s)` : "schema up to date");
      const tlsDir = path.join(config.dataDir, "tls");
      const tls = await ensureLocalCertificates(tlsDir, ["localhost", "127.0.0.1", "::1"]);
      step(
        tls.created ? `created local TLS certificates in ${tlsDir}` : `using TLS certificates in ${tlsDir}`,
      );
      const inboxDir = path.join(config.dataDir, "inbox");
      const smtpUrl = new URL(config.smtp.url);
      const capture =
        smtpUrl.hostname === "127.0.0.1" && Number(smtpUrl.port) === config.smtp.capturePort
          ? await startSmtpCapture({ host: "127.0.0.1", port: config.smtp.capturePort, inboxDir })
          : undefined;
      const api = await startApiProgram(config, db.url, logger, await readTlsFiles(tls));
      const worker = await startWorkerProgram(config, db.url, logger);
      const base = `https://localhost:${config.api.port}`;
      say(
        [
          "",
          "Mailroom is running.",
          ...api.describe.map((l) => `  ${l}`),
          ...worker.describe.map((l) => `  ${l}`),
          capture ? `  SMTP capture smtp://127.0.0.1:${capture.port} → ${inboxDir}/*.eml` : "",
          `  CA         ${tls.caCertFile}`,
          `  Postgres   ${config.database.url ? "DATABASE_URL" : path.join(config.dataDir, "postgres")}`,
          "",
          "Next steps, in another terminal:",
          "  KEY=$(npx mailroom keys create --scopes send)",
          `  curl --cacert ${shown(tls.caCertFile)} ${base}/v1/send \\`,
          '    -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\',
          `    -d '{"from":"Acme <hello@acme.test>","to":"you@example.test","subject":"Hi","text":"It works."}'`,
          `  ls ${shown(inboxDir)}/`,
          "",
          "Local runs accept any from-domain. Ctrl-C stops everything; data stays in the data directory.",
          "",
        ]
          .filter((l, i, all) => l !== "" || all[i - 1] !== "")
          .join("\n"),
      );
      stopOnSignal([
        () => api.stop(),
        () => worker.stop(),
        async () => capture?.close(),
        () => db.stop(),
        () => tracing.shutdown(),
      ]);
    });
}

/** A path as short as it can be shown: relative when under the working directory. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith("..") ? file : relative;
}
