import type { Socket } from "node:net";
import { isDatabaseUnavailable } from "@mailroom/core/db";
import { type ErrorCode, isMailroomError, MailroomError } from "@mailroom/core/errors";
import { redactSecrets } from "@mailroom/core/telemetry";
import type { ErrorObject } from "ajv";
import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";

/** The one place where domain error codes become HTTP statuses. */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_revoked: 401,
  api_key_expired: 401,
  insufficient_scope: 403,
  https_required: 403,
  validation_error: 400,
  invalid_idempotency_key: 400,
  not_found: 404,
  conflict: 409,
  managed_by_operator: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  request_timeout: 408,
  idempotency_key_mismatch: 422,
  domain_not_verified: 422,
  domain_not_allowed: 403,
  template_render_error: 422,
  rate_limit_exceeded: 429,
  quota_exceeded: 429,
  sending_paused: 403,
  category_not_allowed: 403,
  sign_in_failed: 400,
  sign_in_refused: 403,
  service_unavailable: 503,
  internal_error: 500,
};

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_UNAVAILABLE = 5;

export function sendError(reply: FastifyReply, error: MailroomError): FastifyReply {
  const status = STATUS_BY_CODE[error.code];
  if (status === 401) reply.header("www-authenticate", 'Bearer realm="mailroom"');
  if (error.code === "service_unavailable") reply.header("retry-after", String(RETRY_AFTER_UNAVAILABLE));
  if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
  // Messages may name what the client sent (a path segment): a key pasted there is not echoed back, as the
  // log does not write it (the same redaction, which keeps only the key id the spec calls safe to log).
  return reply
    .code(status)
    .type("application/json")
    .send({ error: error.code, message: redactSecrets(error.message) });
}

/** What Node refused before any request existed, as the spec's error. */
function clientErrorOf(error: NodeJS.ErrnoException): MailroomError {
  if (error.code === "HPE_HEADER_OVERFLOW")
    return new MailroomError("headers_too_large", "The request's headers are larger than allowed.");
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return new MailroomError("request_timeout", "The request did not arrive in time.");
  return new MailroomError("validation_error", "request: not a valid HTTP/1.1 request");
}

/**
 * Fastify's `clientErrorHandler`: Node's refusals of a connection's bytes (malformed framing, headers over
 * the limit, a request that never finishes) answered in the spec's `{ error, message }` shape rather than
 * Fastify's own body, then the connection closed, as Node does.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const refusal = clientErrorOf(error);
  const status = STATUS_BY_CODE[refusal.code];
  const body = JSON.stringify({ error: refusal.code, message: refusal.message });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // end(), not write() then destroy(): a TLS socket destroyed at once drops the answer still being encrypted.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A peer that never reads must not keep the socket open.
  socket.setTimeout(5_000, () => socket.destroy());
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * The one wording of a schema failure, for the route validator and the batch's per-item validator alike:
 * `field: problem`, the field as a client writes it (`to[0]`, `template.variables`).
 */
export function describeSchemaError(error: ErrorObject | undefined): string {
  if (!error) return "body: is invalid";
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const path = error.instancePath
    .split("/")
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
  const leaf = params.missingProperty ?? params.additionalProperty;
  const field = leaf ? (path ? `${path}.${leaf}` : leaf) : path || "body";
  // A regular expression says nothing to a client; a pattern whose schema describes the value says that, and
  // so does a bounded integer whose description states its range ("an integer from 1 to 100 …").
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  const described =
    error.keyword === "pattern" ||
    (["type", "minimum", "maximum"].includes(error.keyword) && description?.startsWith("an integer"))
      ? description
      : undefined;
  const problem = params.missingProperty
    ? "is required"
    : params.additionalProperty
      ? "is not a known field"
      : described
        ? `must be ${described}`
        : (error.message ?? "is invalid");
  return `${field}: ${problem}`;
}

/**
 * Turns every failure into the spec's `{ error, message }` body. Validation failures name the field;
 * unexpected errors are logged and answered without internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isMailroomError(error)) return sendError(reply, error);
    if (error.validation) {
      return sendError(
        reply,
        new MailroomError("validation_error", describeSchemaError(error.validation[0])),
      );
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return sendError(
        reply,
        new MailroomError("payload_too_large", "The request body is larger than allowed."),
      );
    }
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return sendError(
        reply,
        new MailroomError(
          "unsupported_media_type",
          "Content-Type: send the body as JSON with Content-Type: application/json",
        ),
      );
    }
    if (error.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH") {
      return sendError(
        reply,
        new MailroomError("validation_error", "body: the length does not match Content-Length"),
      );
    }
    if (error.statusCode === 400) {
      return sendError(reply, new MailroomError("validation_error", "body: not valid JSON"));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, "database unavailable");
      return sendError(
        reply,
        new MailroomError("service_unavailable", "Mailroom cannot reach its database; retry shortly.", {
          retryable: true,
        }),
      );
    }
    request.log.error({ err: error }, "unhandled error");
    return sendError(reply, new MailroomError("internal_error", "Something went wrong on our side."));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new MailroomError(
        "not_found",
        `No route ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)}.`,
      ),
    ),
  );
}
