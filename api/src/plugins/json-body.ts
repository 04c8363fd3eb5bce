import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { MAX_BODY_DEPTH } from "../schemas.ts";

/**
 * True when `value` nests arrays and objects deeper than `limit`. It recurses, but never more than `limit` + 1
 * calls deep whatever the input, and allocates nothing: it runs on every body (a batch is ~1,500 values).
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestsDeeperThan(value[i], limit - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (nestsDeeperThan(record[key], limit - 1)) return true;
  return false;
}

/**
 * The only body parser: Fastify's JSON parser (which refuses `__proto__` and `constructor.prototype` keys), plus a bound on how
 * deep the body nests, checked before any schema or domain code walks it: recursive code (validation,
 * canonical JSON for idempotency, the storable-string check) would otherwise overflow its stack on a body
 * nested thousands of levels deep.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  // JSON is the only body the API takes (spec §4): any other type, text/plain included, is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    void parse(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
        return done(
          new MailroomError("validation_error", `body: nests more than ${MAX_BODY_DEPTH} levels deep`),
          undefined,
        );
      }
      done(null, value);
    });
  });
}
