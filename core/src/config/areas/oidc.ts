import { z } from "zod";
import { SCOPES } from "../../keys/types.ts";
import { ConfigError } from "../error.ts";
import type { AreaEnv } from "./kinds.ts";

const ACCOUNT = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** One role: the members of `group` get `scopes` in `account` (issue 33 item 3, ADR 0063). */
const role = z.object({
  group: z.string().min(1),
  account: z.string().regex(ACCOUNT, "an account name (a Kubernetes namespace name)"),
  scopes: z.array(z.enum(SCOPES)).min(1),
});
export type OidcRole = z.infer<typeof role>;

/** `MAILROOM_OIDC_ROLES`: a JSON list of roles. Its errors name the variable and the entry. */
function parseRoles(value: string): OidcRole[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError('MAILROOM_OIDC_ROLES: not JSON; expected [{"group","account","scopes"}, …]');
  }
  const result = z.array(role).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`MAILROOM_OIDC_ROLES: ${issue?.path.join(".")}: ${issue?.message}`);
  }
  return result.data;
}

/** People who sign in to the console with the company's OpenID Connect provider; off while no issuer is set. */
export const variables = {
  MAILROOM_OIDC_ISSUER: z.string().url().optional(),
  MAILROOM_OIDC_CLIENT_ID: z.string().min(1).optional(),
  MAILROOM_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  MAILROOM_OIDC_REDIRECT_URI: z.string().url().optional(),
  MAILROOM_OIDC_SCOPES: z.string().min(1).default("openid email profile groups"),
  MAILROOM_OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
  MAILROOM_OIDC_ROLES: z.string().default("[]"),
  MAILROOM_OIDC_IDLE_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(3600),
  MAILROOM_OIDC_RECHECK_SECONDS: z.coerce.number().int().min(60).max(86_400).default(300),
};

export function build(e: AreaEnv<typeof variables>) {
  const roles = parseRoles(e.MAILROOM_OIDC_ROLES);
  const issuer = e.MAILROOM_OIDC_ISSUER;
  if (issuer && (!e.MAILROOM_OIDC_CLIENT_ID || !e.MAILROOM_OIDC_REDIRECT_URI)) {
    throw new ConfigError(
      "MAILROOM_OIDC_ISSUER needs MAILROOM_OIDC_CLIENT_ID and MAILROOM_OIDC_REDIRECT_URI",
    );
  }
  return {
    oidc: {
      /** Undefined: sign-in with a provider is off; API keys remain the only way in. */
      provider:
        issuer && e.MAILROOM_OIDC_CLIENT_ID && e.MAILROOM_OIDC_REDIRECT_URI
          ? {
              issuer,
              clientId: e.MAILROOM_OIDC_CLIENT_ID,
              /** Set for a confidential client; a public client relies on PKCE alone. */
              clientSecret: e.MAILROOM_OIDC_CLIENT_SECRET,
              redirectUri: e.MAILROOM_OIDC_REDIRECT_URI,
              scopes: e.MAILROOM_OIDC_SCOPES.split(/[\s,]+/).filter(Boolean),
              groupsClaim: e.MAILROOM_OIDC_GROUPS_CLAIM,
            }
          : undefined,
      roles,
      idleTimeoutSeconds: e.MAILROOM_OIDC_IDLE_TIMEOUT_SECONDS,
      /** How often a person's groups are asked again of the provider, at a use of their key (recheck.ts). */
      recheckSeconds: e.MAILROOM_OIDC_RECHECK_SECONDS,
    },
  };
}
