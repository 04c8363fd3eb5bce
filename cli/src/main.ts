import { Command } from "commander";
import { registerKeyCommands } from "./commands/keys.ts";
import { registerProgramCommands } from "./commands/programs.ts";
import { registerRunCommand } from "./commands/run.ts";

const program = new Command("mailroom")
  .description(
    "Mailroom: self-hosted transactional email. Configuration comes from the environment (.env.example).",
  )
  .showHelpAfterError("(run `mailroom --help` for usage)")
  .enablePositionalOptions();

registerRunCommand(program);
registerProgramCommands(program);
registerKeyCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`mailroom: ${(error as Error).message}\n`);
  process.exit(1);
}
