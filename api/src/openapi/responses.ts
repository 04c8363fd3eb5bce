import { ERROR_CODES } from "@mailroom/core/errors";

/** Headers the API sends, documented once (components.headers) and referenced by every response. */
export const RESPONSE_HEADERS = {
  "X-Request-Id": {
    description: "The request's id, also in the server's log line for it; quote it when asking for help.",
    schema: { type: "string", format: "uuid" },
  },
  "RateLimit-Policy": {
    description:
      'The quotas the request counted against (draft-ietf-httpapi-ratelimit-headers-10), e.g. `"key";q=500;w=1, "account";q=2000;w=1`. Sent once the key is proven.',
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'The quota closest to running out: `r` requests left, `t` seconds until the window resets, e.g. `"key";r=499;t=1`. Sent once the key is proven.',
    schema: { type: "string" },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying (with the same idempotencyKey).",
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description: 'The scheme to authenticate with: `Bearer realm="mailroom"`.',
    schema: { type: "string" },
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

const ERROR_DESCRIPTIONS: Record<number, [string, HeaderName[]]> = {
  400: ["`validation_error` (the message names the field) or `invalid_idempotency_key`", []],
  401: ["`missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired`", ["WWW-Authenticate"]],
  403: [
    "`insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), " +
      "`category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed " +
      "namespaces leave the account out); not retryable",
    [],
  ],
  404: ["`not_found`: no such resource in this account", []],
  409: ["`conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR)", []],
  413: ["`payload_too_large`: the body is larger than allowed", []],
  415: ["`unsupported_media_type`: send the body as `Content-Type: application/json`", []],
  422: ["`idempotency_key_mismatch`, `domain_not_verified` or `template_render_error`; not retryable", []],
  429: [
    "`rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the " +
      "UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey",
    ["Retry-After"],
  ],
  500: ["`internal_error`: the details are in the server's log, under the X-Request-Id", []],
  503: [
    "`service_unavailable`: the database is unreachable; retry after `Retry-After` seconds",
    ["Retry-After"],
  ],
};

/** The `{error, message}` body of every error (spec §2), with every code the API can answer. */
export const errorComponent = {
  type: "object",
  additionalProperties: false,
  required: ["error", "message"],
  properties: {
    error: { type: "string", enum: [...ERROR_CODES], description: "Machine-readable code" },
    message: { type: "string", description: "What went wrong and what to do next" },
  },
} as const;

const headerSchemas = (names: readonly HeaderName[]) =>
  Object.fromEntries(
    names.map((name) => [name, { type: "string", description: RESPONSE_HEADERS[name].description }]),
  );

/** Every success carries the request id and, once the key is proven, the rate-limit fields. */
const SUCCESS_HEADERS: HeaderName[] = ["X-Request-Id", "RateLimit-Policy", "RateLimit"];

const SUCCESS_DESCRIPTIONS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted" };

/** A success response's route schema with its description and headers (made references in the document). */
export function withSuccessHeaders(status: string, schema: unknown): Record<string, unknown> {
  return {
    ...(schema as Record<string, unknown>),
    description: SUCCESS_DESCRIPTIONS[status] ?? "Success",
    headers: headerSchemas(SUCCESS_HEADERS),
  };
}

/** The 204 of a deletion. */
export const noContentResponse = {
  type: "null",
  description: "Done; no body",
  headers: headerSchemas(SUCCESS_HEADERS),
};

/** The route-schema form of one error status: the shared Error body, its description and headers. */
export function errorResponse(status: number): Record<string, unknown> {
  const [description, extra] = ERROR_DESCRIPTIONS[status] ?? ["An error", []];
  const names: HeaderName[] = ["X-Request-Id", ...extra];
  if (status !== 401) names.push("RateLimit-Policy", "RateLimit");
  return { description, headers: headerSchemas(names), $ref: "Error#" };
}
