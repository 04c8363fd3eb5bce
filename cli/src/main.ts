import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerAccountCommands } from "./commands/accounts.ts";
import { registerKeyCommands } from "./commands/keys.ts";
import { registerProgramCommands } from "./commands/programs.ts";
import { registerRunCommand } from "./commands/run.ts";

// The CLI's package version is the product's: the image is tagged with it and the chart's appVersion names it.
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const program = new Command("mailroom")
  .version(version, "-V, --version", "print the Mailroom version")
  .description(
    "Mailroom: self-hosted transactional email. Configuration comes from the environment (.env.example).",
  )
  .showHelpAfterError("(run `mailroom --help` for usage)")
  .enablePositionalOptions();

registerRunCommand(program);
registerProgramCommands(program);
registerKeyCommands(program);
registerAccountCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  const hint =
    code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT"
      ? "\n  The database is not reachable: check DATABASE_URL, or unset it to use the embedded Postgres."
      : "";
  // An error can quote what the user typed (a URL, a header): never echo a key from it. Loaded here, on
  // failure only: the telemetry module would slow every command's start.
  const { redactSecrets } = await import("@mailroom/core/telemetry");
  process.stderr.write(`mailroom: ${redactSecrets((error as Error).message)}${hint}\n`);
  process.exit(1);
}
