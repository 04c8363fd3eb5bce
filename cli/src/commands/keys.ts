import { userInfo } from "node:os";
import { environmentHelp } from "@mailroom/core/config";
import { endPool } from "@mailroom/core/db";
import {
  ACCOUNT_PATTERN,
  createKey,
  EXPIRY_CHOICES,
  isExpiryChoice,
  isScope,
  keyState,
  listKeys,
  revokeKey,
  SCOPES,
} from "@mailroom/core/keys";
import type { Command } from "commander";
import { loadProgramConfig } from "../config.ts";
import { openDatabase, openPool } from "../database.ts";
import { printTable, say } from "../output.ts";

/**
 * The audit trail's actor for `mailroom keys` (ADR 0062): whoever runs it on the installation, by their OS user
 * (in a pod, the container's user; `kubectl exec` leaves no better name to record).
 */
const CLI_ACTOR = () => ({ actor: { kind: "cli" as const, id: osUser() } });

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid with no passwd entry (common in containers): its number is all there is.
    return `uid:${process.getuid?.() ?? "?"}`;
  }
}

export async function withPool<T>(fn: (pool: ReturnType<typeof openPool>) => Promise<T>): Promise<T> {
  const config = loadProgramConfig();
  const db = await openDatabase(config, say);
  const pool = openPool(config, db.url, "mailroom-cli");
  try {
    return await fn(pool);
  } finally {
    await endPool(pool);
    await db.stop();
  }
}

export function fail(message: string): never {
  say(`mailroom: ${message}`);
  process.exit(2);
}

export function registerKeyCommands(program: Command): void {
  const keys = program
    .command("keys")
    .description("create, list and revoke API keys")
    .addHelpText("after", environmentHelp("keys"));

  keys
    .command("create")
    .description("create an API key; prints the full key (shown only this once) alone on stdout")
    .requiredOption("--scopes <list>", `comma-separated scopes: ${SCOPES.join(", ")}`)
    .option("--expires <choice>", `expiry: ${EXPIRY_CHOICES.join(", ")}`, "never")
    .option("--account <name>", "account the key belongs to (a Kubernetes namespace name)", "default")
    .option("--name <text>", "a label to recognise the key by")
    .option(
      "--rate-limit <perSecond>",
      "requests per second for this key (default: MAILROOM_RATE_LIMIT_PER_KEY)",
    )
    .option("--sandbox", "a sandbox key: its mail is captured into the account's dev inbox, never delivered")
    .action(
      async (options: {
        scopes: string;
        expires: string;
        account: string;
        name?: string;
        rateLimit?: string;
        sandbox?: boolean;
      }) => {
        const scopes = options.scopes
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        const unknown = scopes.filter((s) => !isScope(s));
        if (scopes.length === 0 || unknown.length > 0) {
          fail(
            `--scopes: unknown scope ${unknown.join(", ") || "(none given)"}; choose from ${SCOPES.join(", ")}`,
          );
        }
        if (!isExpiryChoice(options.expires)) fail(`--expires: choose one of ${EXPIRY_CHOICES.join(", ")}`);
        const rateLimit = options.rateLimit === undefined ? undefined : Number(options.rateLimit);
        if (rateLimit !== undefined && !(Number.isInteger(rateLimit) && rateLimit > 0)) {
          fail("--rate-limit: a whole number of requests per second, at least 1");
        }
        if (!ACCOUNT_PATTERN.test(options.account)) {
          fail("--account: lowercase letters, digits and '-', at most 63 characters (a namespace name)");
        }
        const { key, fullKey } = await withPool((pool) =>
          createKey(pool, {
            account: options.account,
            scopes: scopes.filter(isScope),
            expires: options.expires as (typeof EXPIRY_CHOICES)[number],
            name: options.name,
            managedBy: "cli",
            rateLimitPerSecond: rateLimit,
            mode: options.sandbox ? "sandbox" : "live",
            by: CLI_ACTOR(),
          }),
        );
        say(
          `created ${key.mode === "sandbox" ? "sandbox " : ""}key ${key.keyId} (account ${key.account}, scopes ${key.scopes.join(",")}, ` +
            `expires ${key.expiresAt ? key.expiresAt.toISOString() : "never"}). Store it now: it is not shown again.`,
        );
        process.stdout.write(`${fullKey}\n`);
      },
    );

  keys
    .command("list")
    .description("list API keys (ids, scopes, state; never secrets)")
    .option("--account <name>", "only this account's keys")
    .option("--json", "print JSON instead of a table")
    .action(async (options: { account?: string; json?: boolean }) => {
      const now = new Date();
      const list = await withPool((pool) =>
        listKeys(pool, options.account ? { account: options.account } : {}),
      );
      const shaped = list.map((k) => ({
        keyId: k.keyId,
        account: k.account,
        name: k.name,
        scopes: k.scopes,
        state: keyState(k, now),
        createdAt: k.createdAt.toISOString(),
        expiresAt: k.expiresAt?.toISOString() ?? null,
        lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(shaped, null, 2)}\n`);
        return;
      }
      if (shaped.length === 0)
        return say("no keys yet: create one with `npm exec --no -- mailroom keys create --scopes send`");
      printTable(
        ["KEY ID", "ACCOUNT", "SCOPES", "STATE", "EXPIRES", "LAST USED", "NAME"],
        shaped.map((k) => [
          k.keyId,
          k.account,
          k.scopes.join(","),
          k.state,
          k.expiresAt ?? "never",
          k.lastUsedAt ?? "-",
          k.name ?? "",
        ]),
      );
    });

  keys
    .command("revoke")
    .description("revoke a key by its key id; its queued mail fails with api_key_revoked")
    .argument("<keyId>", "the 12-character key id (the middle part of the key)")
    .action(async (keyId: string) => {
      if (!/^[0-9A-Za-z]{12}$/.test(keyId)) {
        fail("give the key id (12 characters, the middle part of mrk_<keyId>_<secret>), not the full key");
      }
      const result = await withPool((pool) => revokeKey(pool, keyId, CLI_ACTOR()));
      if (!result) fail(`no key with id ${keyId}; see \`npm exec --no -- mailroom keys list\``);
      say(`revoked ${keyId}; ${result.failedEmailIds.length} unsent email(s) failed with api_key_revoked`);
    });
}
