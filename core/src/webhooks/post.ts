import http from "node:http";
import https from "node:https";
import type { DeliveryTarget } from "./ssrf.ts";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
const EXCERPT_CHARS = 1024;
// Read at most this much of an answer: enough to reuse the connection, too little to be a memory sink.
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostResult {
  /** Undefined when no HTTP answer came (connection error, timeout). */
  statusCode?: number;
  retryAfter?: string;
  responseExcerpt?: string;
  error?: string;
  durationMs: number;
}

export interface WebhookHttpClient {
  /** POSTs to the checked address; never follows a redirect (a 3xx is just a failed attempt). */
  post(target: DeliveryTarget, headers: Record<string, string>, body: string): Promise<PostResult>;
  /** Closes kept-alive connections. */
  close(): void;
}

/** An HTTP(S) client for deliveries with keep-alive pools and a whole-request timeout (default 15 s). */
export function createWebhookHttpClient(options: { timeoutMs?: number; maxSockets?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function post(target: DeliveryTarget, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    const secure = target.url.protocol === "https:";
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<PostResult, "durationMs">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const request = (secure ? https : http).request({
        agent: secure ? httpsAgent : httpAgent,
        // The checked address, not the name: a second lookup could answer differently (DNS rebinding).
        host: target.address,
        family: target.family,
        port: target.url.port || (secure ? 443 : 80),
        path: `${target.url.pathname}${target.url.search}`,
        method: "POST",
        ...(secure && target.servername ? { servername: target.servername } : {}),
        headers: {
          ...headers,
          host: target.url.host,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "Mailroom-Webhooks/1",
        },
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish({ error: `timed out after ${timeoutMs} ms` });
      }, timeoutMs);
      request.on("error", (error) => finish({ error: error.message }));
      request.on("response", (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            statusCode: response.statusCode ?? 0,
            ...(typeof response.headers["retry-after"] === "string"
              ? { retryAfter: response.headers["retry-after"] }
              : {}),
            // Postgres text cannot hold NUL: a receiver's stray zero byte must not make the record fail.
            responseExcerpt: Buffer.concat(chunks)
              .toString("utf8")
              .replaceAll("\0", "")
              .slice(0, EXCERPT_CHARS),
          });
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          else {
            response.destroy();
            done();
          }
        });
        response.on("end", done);
        response.on("error", done);
      });
      request.end(body);
    });
  }

  return {
    post,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  } satisfies WebhookHttpClient;
}
