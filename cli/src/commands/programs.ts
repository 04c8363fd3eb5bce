import { migrate } from "@mailroom/core/db";
import { createLogger, startTracing } from "@mailroom/core/telemetry";
import type { Command } from "commander";
import { loadProgramConfig } from "../config.ts";
import { openDatabase } from "../database.ts";
import { say, step } from "../output.ts";
import { type Program, startApiProgram, startWorkerProgram } from "../programs.ts";
import { stopOnSignal } from "./lifecycle.ts";

function registerProgram(
  program: Command,
  name: "api" | "worker",
  description: string,
  start: typeof startWorkerProgram,
): void {
  program
    .command(name)
    .description(description)
    .action(async () => {
      const config = loadProgramConfig();
      const logger = createLogger({ level: config.log.level, name: `mailroom-${name}` });
      const tracing = startTracing({
        serviceName: config.telemetry.serviceName ?? `mailroom-${name}`,
        exporter: config.telemetry.exporter,
        otlpEndpoint: config.telemetry.otlpEndpoint,
      });
      const db = await openDatabase(config, step);
      const running: Program = await start(config, db.url, logger);
      for (const line of running.describe) say(line);
      stopOnSignal([() => running.stop(), () => db.stop(), () => tracing.shutdown()]);
    });
}

export function registerProgramCommands(program: Command): void {
  registerProgram(program, "api", "serve the HTTPS API (production: one per API pod)", startApiProgram);
  registerProgram(
    program,
    "worker",
    "run delivery and background jobs (production: one per worker pod)",
    startWorkerProgram,
  );
  program
    .command("migrate")
    .description("bring the database schema up to date (Mailroom's and graphile-worker's), then exit")
    .action(async () => {
      const config = loadProgramConfig();
      const db = await openDatabase(config, step);
      try {
        const { applied } = await migrate({ url: db.url, log: step });
        say(applied.length > 0 ? `applied: ${applied.join(", ")}` : "schema already up to date");
      } finally {
        await db.stop();
      }
    });
}
