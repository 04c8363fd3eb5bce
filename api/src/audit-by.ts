import type { AuditContext } from "@mailroom/core/audit";
import type { FastifyRequest } from "fastify";

/**
 * Who makes an API request's change, for the audit trail (ADR 0062): the key the auth plugin proved, with its
 * name, and from where (the peer's address as the socket gives it, and the user agent). A person signed in
 * through OIDC holds a key minted for them, so their requests arrive here as that key.
 */
export function auditContextOf(request: FastifyRequest): AuditContext {
  const userAgent = request.headers["user-agent"];
  return {
    actor: { kind: "key", id: request.apiKey.keyId, label: request.apiKey.name },
    origin: { ip: request.ip, userAgent: typeof userAgent === "string" ? userAgent : null },
  };
}
