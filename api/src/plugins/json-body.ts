import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { MAX_BODY_DEPTH } from "../schemas.ts";

/** True when `value` nests arrays and objects deeper than `limit`; iterative, so any depth is safe to ask. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
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
