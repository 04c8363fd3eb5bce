import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./openapi-types.ts";

export type { components, paths } from "./openapi-types.ts";

export interface MailroomClientOptions {
  /** `https://host:port` of the API. */
  baseUrl: string;
  /** `mrk_<keyId>_<secret>`, sent as the bearer token of every request. */
  apiKey: string;
  /** A fetch to use instead of the global one (e.g. one that trusts a private CA). */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A typed client of the Mailroom API: its paths, bodies and answers are the types openapi-typescript
 * generated from docs/openapi.json, so a change of the API that the client does not follow fails to
 * compile. `client.POST("/v1/send", { body })` answers `{ data }` on success and `{ error }` (the spec's
 * `{error, message}`) otherwise.
 */
export function createMailroomClient(options: MailroomClientOptions): Client<paths> {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
