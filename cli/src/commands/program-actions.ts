import { isDatabaseUnavailable, migrate } from "@mailroom/core/db";
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

// Not up yet: unreachable or starting (core's classification), or its Service name does not resolve yet.
const notUpYet = (error: unknown) =>
  isDatabaseUnavailable(error) ||
  ["ENOTFOUND", "EAI_AGAIN"].includes((error as { code?: string }).code ?? "");

/**
 * `mailroom migrate`: applies the schema and exits. With `waitSeconds`, a database that is not up yet (a
 * CloudNativePG Cluster installed in the same release) is retried every 2 s for that long before giving up.
 */
export async function runMigrate(waitSeconds = 0): Promise<void> {
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0)
    throw new Error("--wait: a number of seconds, 0 or more");
  const config = loadProgramConfig();
  const db = await openDatabase(config, step);
  const deadline = Date.now() + waitSeconds * 1000;
  const migrateWhenUp = async (): Promise<Awaited<ReturnType<typeof migrate>>> => {
    try {
      return await migrate({ url: db.url, log: step });
    } catch (error) {
      if (!notUpYet(error) || Date.now() > deadline) throw error;
      step(`the database is not up yet (${(error as Error).message}); trying again in 2 s`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return migrateWhenUp();
    }
  };
  try {
    const { applied } = await migrateWhenUp();
    say(applied.length > 0 ? `applied: ${applied.join(", ")}` : "schema already up to date");
  } finally {
    await db.stop();
  }
}
