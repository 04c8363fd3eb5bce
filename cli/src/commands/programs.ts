import { environmentHelp } from "@mailroom/core/config";
import type { Command } from "commander";

// Implementations load on use, so `keys` and `--help` do not pay for the API, worker and tracing modules.
const actions = () => import("./program-actions.ts");

export function registerProgramCommands(program: Command): void {
  program
    .command("api")
    .description("serve the HTTPS API (production: one per API pod)")
    .addHelpText("after", environmentHelp("api"))
    .action(async () => (await actions()).runProgram("api"));
  program
    .command("worker")
    .description("run delivery and background jobs (production: one per worker pod)")
    .addHelpText("after", environmentHelp("worker"))
    .action(async () => (await actions()).runProgram("worker"));
  program
    .command("smtp")
    .description(
      "SMTP doors: submission on 587/465-style ports (AUTH with an API key) and the bounce receiver; each on unless turned off (production: one door per pod)",
    )
    .addHelpText("after", environmentHelp("smtp"))
    .action(async () => (await actions()).runProgram("smtp"));
  program
    .command("operator")
    .description(
      "reconcile ApiKey, SendingDomain, Template and WebhookEndpoint resources (production: the operator pod)",
    )
    .addHelpText("after", environmentHelp("operator"))
    .action(async () => (await import("./operator-actions.ts")).runOperator());
  program
    .command("apply")
    .description("apply Mailroom resources from YAML without a cluster (local mode of the operator)")
    .requiredOption("-f, --filename <paths...>", "YAML files or directories (e.g. examples/)")
    .addHelpText("after", environmentHelp("apply"))
    .action(async (options: { filename: string[] }) =>
      (await import("./operator-actions.ts")).runApply(options.filename),
    );
  program
    .command("migrate")
    .description("bring the database schema up to date (Mailroom's and graphile-worker's), then exit")
    .option(
      "--wait <seconds>",
      "wait this long for the database to accept connections (one being created with the chart)",
      "0",
    )
    .addHelpText("after", environmentHelp("migrate"))
    .action(async (options: { wait: string }) => (await actions()).runMigrate(Number(options.wait)));
}
