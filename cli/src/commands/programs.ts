import type { Command } from "commander";

// Implementations load on use, so `keys` and `--help` do not pay for the API, worker and tracing modules.
const actions = () => import("./program-actions.ts");

export function registerProgramCommands(program: Command): void {
  program
    .command("api")
    .description("serve the HTTPS API (production: one per API pod)")
    .action(async () => (await actions()).runProgram("api"));
  program
    .command("worker")
    .description("run delivery and background jobs (production: one per worker pod)")
    .action(async () => (await actions()).runProgram("worker"));
  program
    .command("migrate")
    .description("bring the database schema up to date (Mailroom's and graphile-worker's), then exit")
    .action(async () => (await actions()).runMigrate());
}
