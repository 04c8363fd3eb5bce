import type { AuditContext } from "@mailroom/core/audit";
import type { FastifyRequest } from "fastify";

/**
 * Who makes an API request's change, for the audit trail (ADR 0062): the key the auth plugin proved, with its
 * name, and from where (the peer's address as the socket gives it, and the user agent). A person signed in
 * through OIDC holds a key minted for them (ADR 0063): their changes are recorded as the person (subject,
 * email) with that key's id alongside (ADR 0069), so the trail names who, not only which credential.
 */
export function auditContextOf(request: FastifyRequest): AuditContext {
  const userAgent = request.headers["user-agent"];
  const key = request.apiKey;
  return {
    actor: key.owner
      ? { kind: "person", id: key.owner.subject, label: key.owner.email, keyId: key.keyId }
      : { kind: "key", id: key.keyId, label: key.name },
    origin: { ip: request.ip, userAgent: typeof userAgent === "string" ? userAgent : null },
  };
}
