/**
 * `audit` reads the account's audit trail (`GET /v1/audit`, ADR 0062) and nothing else; `keys` lists, creates
 * (within its own scopes) and revokes the account's keys (`/v1/keys`, ADR 0069).
 */
export const SCOPES = ["send", "domains", "templates", "webhooks", "audit", "keys"] as const;
export type Scope = (typeof SCOPES)[number];

export const EXPIRY_CHOICES = ["30d", "90d", "365d", "never"] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

export type KeyState = "active" | "revoked" | "expired";

/** A `sandbox` key's mail is captured into its account's inbox, never delivered (issue 30, ADR 0047). */
export const KEY_MODES = ["live", "sandbox"] as const;
export type KeyMode = (typeof KEY_MODES)[number];
export type KeyManager = "cli" | "api" | "operator";

/** What Mailroom stores about a key: never the secret. */
export interface ApiKeyRecord {
  keyId: string;
  account: string;
  name: string | null;
  scopes: Scope[];
  managedBy: KeyManager;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Requests per second for this key; null uses the configured per-key limit. */
  rateLimitPerSecond: number | null;
  /** `sandbox`: what it sends is captured, not delivered (`core/src/sandbox/`). */
  mode: KeyMode;
  /** A person's key, minted at an OpenID Connect sign-in (ADR 0063); null for a machine's key. */
  owner: KeyOwner | null;
  /** A person's key: its session's last request (the idle timeout's clock); null for a machine's key. */
  sessionActiveAt: Date | null;
  /** A person's key: when the provider last confirmed their groups (core/src/oidc/recheck.ts). */
  ownerCheckedAt: Date | null;
  /** Why Mailroom revoked the key itself (idle session, the provider's answer); null otherwise. */
  revokedReason: string | null;
}

/** Who a person's key belongs to: the ID token's issuer, subject and email. */
export interface KeyOwner {
  issuer: string;
  subject: string;
  email: string | null;
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isExpiryChoice(value: string): value is ExpiryChoice {
  return (EXPIRY_CHOICES as readonly string[]).includes(value);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The expiry instant for a choice made at creation; `never` has none. */
export function expiryDate(choice: ExpiryChoice, from: Date): Date | null {
  if (choice === "never") return null;
  return new Date(from.getTime() + Number.parseInt(choice, 10) * DAY_MS);
}

/** The state of a key at `now`: revocation wins over expiry. */
export function keyState(key: Pick<ApiKeyRecord, "revokedAt" | "expiresAt">, now: Date): KeyState {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

/** Account names follow Kubernetes namespace rules, since an account is the namespace of its CRs. */
export const ACCOUNT_PATTERN = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
