import { z } from "zod";
import * as api from "./areas/api.ts";
import * as audit from "./areas/audit.ts";
import * as delivery from "./areas/delivery.ts";
import * as domains from "./areas/domains.ts";
import * as limits from "./areas/limits.ts";
import * as oidc from "./areas/oidc.ts";
import * as operator from "./areas/operator.ts";
import * as shaping from "./areas/shaping.ts";
import * as simulator from "./areas/simulator.ts";
import * as smtp from "./areas/smtp.ts";
import * as storage from "./areas/storage.ts";
import * as telemetry from "./areas/telemetry.ts";
import * as tlsReports from "./areas/tls-reports.ts";
import * as webhooks from "./areas/webhooks.ts";
import { ConfigError } from "./error.ts";

export { ConfigError };

/**
 * The areas, each owning its variables and its top-level keys of the config (config.test.ts checks both).
 * @internal
 */
export const AREAS = [
  storage,
  api,
  smtp,
  limits,
  delivery,
  shaping,
  domains,
  operator,
  webhooks,
  telemetry,
  simulator,
  tlsReports,
  audit,
  oidc,
] as const;

/**
 * Every environment variable Mailroom reads, with its default, area by area (`areas/`: each declares its
 * variables and builds its part of the config from them). `.env.example` documents the same list;
 * `config.test.ts` fails when the two drift apart. A new capability adds its variables to its area's file,
 * or a new area here.
 */
const envSchema = z.object({
  ...storage.variables,
  ...api.variables,
  ...smtp.variables,
  ...limits.variables,
  ...delivery.variables,
  ...shaping.variables,
  ...domains.variables,
  ...operator.variables,
  ...webhooks.variables,
  ...telemetry.variables,
  ...simulator.variables,
  ...tlsReports.variables,
  ...audit.variables,
  ...oidc.variables,
});

export type EnvInput = Record<string, string | undefined>;

function buildConfig(e: z.infer<typeof envSchema>) {
  return {
    ...storage.build(e),
    ...api.build(e),
    ...smtp.build(e),
    ...limits.build(e),
    ...delivery.build(e),
    ...shaping.build(e),
    ...domains.build(e),
    ...operator.build(e),
    ...webhooks.build(e),
    ...telemetry.build(e),
    ...simulator.build(e),
    ...tlsReports.build(e),
    ...audit.build(e),
    ...oidc.build(e),
  };
}

export type Config = Readonly<ReturnType<typeof buildConfig>>;

/** Each variable's default (undefined: unset), as parsed; `--help` shows them. */
export const CONFIG_DEFAULTS = envSchema.parse({});

/** The names of every variable `loadConfig` reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

function deepFreeze<T>(value: T): T {
  // A Buffer (the key-encryption key given inline) cannot be frozen: Object.freeze throws on typed arrays.
  if (value && typeof value === "object" && !ArrayBuffer.isView(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Parses the environment once into a frozen, validated config. Empty strings count as unset; a program may
 * supply its own defaults (e.g. `mailroom run` relaxes the from-domain check), which the environment overrides.
 * Throws a ConfigError naming every offending variable.
 */
export function loadConfig(env: EnvInput, programDefaults: EnvInput = {}): Config {
  const input: EnvInput = {};
  for (const name of CONFIG_VARIABLES) {
    const value = env[name] === undefined || env[name] === "" ? programDefaults[name] : env[name];
    if (value !== undefined && value !== "") input[name] = value;
  }
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      const got = input[name] === undefined ? "" : ` (got ${JSON.stringify(input[name])})`;
      return `  ${name}: ${issue.message}${got}`;
    });
    throw new ConfigError(
      `invalid configuration:\n${lines.join("\n")}\nSee .env.example for every variable.`,
    );
  }
  return deepFreeze(buildConfig(parsed.data));
}
