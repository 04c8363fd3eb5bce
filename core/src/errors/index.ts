/**
 * Every machine-readable code a Mailroom operation can fail with. The API maps each to an HTTP status in
 * one place (api/src/plugins/errors.ts); core never speaks HTTP.
 */
export const ERROR_CODES = [
  "missing_api_key",
  "invalid_api_key",
  "api_key_revoked",
  "api_key_expired",
  "insufficient_scope",
  "validation_error",
  "invalid_idempotency_key",
  "idempotency_key_mismatch",
  "not_found",
  "conflict",
  "managed_by_operator",
  "domain_not_verified",
  // A shared domain (ClusterSendingDomain) whose allowed namespaces leave the account out (issue 31).
  "domain_not_allowed",
  "template_render_error",
  "rate_limit_exceeded",
  // The account's per-day quota is spent until the UTC day ends (issue 31); per-second is rate_limit_exceeded.
  "quota_exceeded",
  // The account is paused (by its reputation guard or by hand) until it is resumed (issue 31).
  "sending_paused",
  // The account's policy does not allow the category (issue 31).
  "category_not_allowed",
  // A person's OpenID Connect sign-in did not prove who they are: code, verifier, nonce or ID token (ADR 0063).
  "sign_in_failed",
  // The person is who they say, but no configured role maps any of their groups (ADR 0063).
  "sign_in_refused",
  "payload_too_large",
  "unsupported_media_type",
  "headers_too_large",
  "request_timeout",
  "https_required",
  "service_unavailable",
  "internal_error",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A typed domain error: a code, a human message, and whether retrying the same request can succeed. */
export class MailroomError extends Error {
  override name = "MailroomError";
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** When retrying can succeed, the seconds to wait first (a quota's window): HTTP's `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryable?: boolean; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isMailroomError(error: unknown): error is MailroomError {
  return error instanceof MailroomError;
}
