import type { OidcRole } from "../config/areas/oidc.ts";
import type { Scope } from "../keys/types.ts";

/** What a person may do, account by account: the union of the scopes of every role one of their groups has. */
export function grantsOf(groups: readonly string[], roles: readonly OidcRole[]): Map<string, Scope[]> {
  const held = new Set(groups);
  const grants = new Map<string, Set<Scope>>();
  for (const role of roles) {
    if (!held.has(role.group)) continue;
    const scopes = grants.get(role.account) ?? new Set<Scope>();
    for (const scope of role.scopes) scopes.add(scope);
    grants.set(role.account, scopes);
  }
  return new Map(
    [...grants]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([account, scopes]) => [account, [...scopes].sort()]),
  );
}

/** The groups a claim carries: a list of strings, or one string (some providers send a lone group so). */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}
