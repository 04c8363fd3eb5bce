import { environmentHelp } from "@mailroom/core/config";
import type { Command } from "commander";

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description(
      "run Mailroom locally: embedded Postgres, HTTPS API with a local CA, worker, and an SMTP capture " +
        "that writes every message to <data dir>/inbox",
    )
    .addHelpText("after", environmentHelp("run"))
    // Loaded on use, so that `keys` and `--help` do not pay for the API, worker and tracing modules.
    .action(async () => (await import("./run-action.ts")).runLocal());
}
