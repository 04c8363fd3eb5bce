import { request } from "node:https";

export interface HttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as received, for answers that are bytes rather than text (a raw message, an attachment). */
  bytes: Buffer;
  json: Record<string, unknown>;
}

/** A small HTTPS client that trusts the given CA, for tests against the real TLS listener. */
export function httpsRequest(
  url: string,
  options: {
    ca: string | Buffer;
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    /** Gives up (rejects) when no answer came within this long. */
    timeoutMs?: number;
  },
): Promise<HttpsResponse> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        ca: options.ca,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString("utf8");
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON: callers look at `text`
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, bytes, json });
        });
      },
    );
    req.on("error", reject);
    if (options.timeoutMs) req.setTimeout(options.timeoutMs, () => req.destroy(new Error("timeout")));
    req.end(body);
  });
}
