import { migrate } from "@mailroom/core/db";
import { createLogger, startTracing } from "@mailroom/core/telemetry";
import { loadProgramConfig } from "../config.ts";
import { openDatabase } from "../database.ts";
import { say, step } from "../output.ts";
import { requireKek, startApiProgram, startWorkerProgram } from "../programs.ts";
import { stopOnSignal } from "./lifecycle.ts";

/** `mailroom api` / `mailroom worker`: one production program, stopped gracefully on SIGTERM. */
export async function runProgram(name: "api" | "worker"): Promise<void> {
  const config = loadProgramConfig();
  const logger = createLogger({ level: config.log.level, name: `mailroom-${name}` });
  const tracing = await startTracing({
    serviceName: config.telemetry.serviceName ?? `mailroom-${name}`,
    exporter: config.telemetry.exporter,
    otlpEndpoint: config.telemetry.otlpEndpoint,
  });
  const kek = await requireKek(config);
  const db = await openDatabase(config, step);
  const start = name === "api" ? startApiProgram : startWorkerProgram;
  const running = await start(config, db.url, logger, kek);
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
