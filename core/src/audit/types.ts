/**
 * Who made a change. `key`: an API key (id = key id, label = its name); `person`: someone signed in, acting
 * with the key minted for them (id = their subject, label = their email, keyId = that key); `operator`: a
 * custom resource (id = `Kind/namespace/name`); `smtp`: the submission door (id = the key id a login tried);
 * `cli`: `mailroom` run on the installation (id = the OS user); `system`: Mailroom itself (id = the part,
 * e.g. `reputation-guard`).
 */
export const AUDIT_ACTOR_KINDS = ["key", "person", "operator", "smtp", "cli", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

export interface AuditActor {
  kind: AuditActorKind;
  id: string;
  label?: string | null | undefined;
  /** A person's change: the key they acted with (ADR 0069). */
  keyId?: string | null | undefined;
}

/** From where: the HTTP client's address and user agent, or the SMTP peer's address. */
export interface AuditOrigin {
  ip?: string | null | undefined;
  userAgent?: string | null | undefined;
}

/** Who is changing something, and from where: handed to every change that is audited. */
export interface AuditContext {
  actor: AuditActor;
  origin?: AuditOrigin | undefined;
}

/** What is recorded, per kind of change (ADR 0062). */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.revoked",
  "domain.created",
  "domain.verified",
  "domain.updated",
  "domain.dkim_rotation_requested",
  "domain.deleted",
  "template.created",
  "template.updated",
  "template.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.delivery_replayed",
  "email.canceled",
  "email.rescheduled",
  "suppression.added",
  "suppression.lifted",
  "account.paused",
  "account.resumed",
  "account.policy_applied",
  "sandbox.chaos_replaced",
  "smtp.auth_failed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One change: on which account, what was done, to what. */
export interface AuditChange {
  /** Null only for an installation-wide event (an SMTP login naming no known key). */
  account: string | null;
  action: AuditAction;
  target?: string | null | undefined;
  detail?: Record<string, unknown> | undefined;
}

/** A row of the audit trail, as `GET /v1/audit` shows it. */
export interface AuditEvent {
  id: string;
  at: Date;
  actor: { kind: AuditActorKind; id: string; label: string | null; keyId: string | null };
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  origin: { ip: string | null; userAgent: string | null };
}
