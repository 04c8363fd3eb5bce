import { setAccountSandbox } from "@mailroom/core/accounts";
import { ACCOUNT_PATTERN } from "@mailroom/core/keys";
import type { Command } from "commander";
import { say } from "../output.ts";
import { fail, withPool } from "./keys.ts";

export function registerAccountCommands(program: Command): void {
  const accounts = program.command("accounts").description("an account's settings");
  accounts
    .command("sandbox")
    .description(
      "make an account a sandbox (its mail is captured into its dev inbox, never delivered), or live with --off;" +
        " mail already accepted keeps the choice made when it was accepted",
    )
    .argument("<account>", "the account (a Kubernetes namespace name)")
    .option("--off", "make the account live again")
    .action(async (account: string, options: { off?: boolean }) => {
      if (!ACCOUNT_PATTERN.test(account)) {
        fail("<account>: lowercase letters, digits and '-', at most 63 characters (a namespace name)");
      }
      await withPool((pool) => setAccountSandbox(pool, account, !options.off));
      say(
        `account ${account} is ${options.off ? "live: its new mail is delivered" : "a sandbox: its new mail is captured"}`,
      );
    });
}
