import { migrate } from "@mailroom/core/db";
import { createLogger, startTracing } from "@mailroom/core/telemetry";
import { loadProgramConfig } from "../config.ts";
import { openDatabase } from "../database.ts";
import { say, step } from "../output.ts";
import { requireKek, startApiProgram, startSmtpProgram, startWorkerProgram } from "../programs.ts";
import { stopOnSignal } from "./lifecycle.ts";

/** `mailroom api` / `mailroom worker` / `mailroom smtp`: one production program, stopped gracefully on SIGTERM. */
export async function runProgram(name: "api" | "worker" | "smtp"): Promise<void> {
  const config = loadProgramConfig();
  const logger = createLogger({ level: config.log.level, name: `mailroom-${name}` });
  const tracing = await startTracing({
    serviceName: config.telemetry.serviceName ?? `mailroom-${name}`,
    exporter: config.telemetry.exporter,
    otlpEndpoint: config.telemetry.otlpEndpoint,
  });
  const kek = name === "smtp" ? undefined : await requireKek(config);
  const db = await openDatabase(config, step);
  // The SMTP program holds no DKIM key (it only accepts mail and reports): it needs no key-encryption key.
  const running = kek
    ? await (name === "api" ? startApiProgram : startWorkerProgram)(config, db.url, logger, kek)
    : await startSmtpProgram(config, db.url, logger);
  for (const line of running.describe) say(line);
  stopOnSignal([() => running.stop(), () => db.stop(), () => tracing.shutdown()]);
}

/** `mailroom migrate`: applies the schema and exits. */
export async function runMigrate(): Promise<void> {
  const config = loadProgramConfig();
  const db = await openDatabase(config, step);
  try {
    const { applied } = await migrate({ url: db.url, log: step });
    say(applied.length > 0 ? `applied: ${applied.join(", ")}` : "schema already up to date");
  } finally {
    await db.stop();
  }
}
