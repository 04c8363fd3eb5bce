import http from "node:http";
import https from "node:https";
import type { DeliveryTarget } from "./ssrf.ts";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
/** A receiver that does not take the connection within this long holds no slot longer (issue 26). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
/** Nor one that takes the request and sends no status line within this long after it. */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 10_000;
/**
 * Of an answer, only this much is kept, and only its owner's concern: the excerpt is recorded for endpoints
 * that have answered 2xx once (mailroom_webhook_record_failure), so a URL pointing at an internal service
 * that never spoke the webhook protocol reads nothing of it back through the deliveries API (ADR 0027).
 */
const EXCERPT_CHARS = 256;
// Read at most this much of an answer: enough to reuse the connection, too little to be a memory sink.
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostResult {
  /** Undefined when no HTTP answer came (connection error, timeout). */
  statusCode?: number;
  retryAfter?: string;
  responseExcerpt?: string;
  /**
   * What went wrong, worded for the receiver's owner, who reads it through the API: a class of failure, never
   * an address, a port's state or a resolver's answer (ADR 0027).
   */
  error?: string;
  /** The underlying error, for the worker's log only (the operator's), never stored. */
  detail?: string;
  durationMs: number;
}

export interface WebhookHttpClient {
  /** POSTs to the checked address; never follows a redirect (a 3xx is just a failed attempt). */
  post(target: DeliveryTarget, headers: Record<string, string>, body: string): Promise<PostResult>;
  /** Closes kept-alive connections. */
  close(): void;
}

export interface WebhookHttpClientOptions {
  /** Whole request (default 15 s). */
  timeoutMs?: number;
  /** Until the connection is up (default 3 s; a kept-alive one is up already). */
  connectTimeoutMs?: number;
  /** From the request's last byte to the answer's status line (default 10 s). */
  firstByteTimeoutMs?: number;
  maxSockets?: number;
}

/**
 * An HTTP(S) client for deliveries with keep-alive pools and three timeouts: connect (3 s), first byte of the
 * answer (10 s) and the whole request (15 s), so a receiver that accepts and never answers holds a worker's
 * slot briefly.
 */
export function createWebhookHttpClient(options: WebhookHttpClientOptions = {}) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const connectMs = Math.min(timeoutMs, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const firstByteMs = Math.min(timeoutMs, options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function post(target: DeliveryTarget, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    const secure = target.url.protocol === "https:";
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      let connected = false;
      let answered = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (result: Omit<PostResult, "durationMs">) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        resolve({ ...result, durationMs: elapsed() });
      };
      const giveUp = (error: string) => {
        request.destroy();
        finish({ error, detail: error });
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
      timers.push(setTimeout(() => giveUp(`timed out after ${timeoutMs} ms`), timeoutMs));
      request.on("socket", (socket) => {
        const up = () => {
          connected = true;
        };
        if (!socket.connecting) return up();
        timers.push(
          setTimeout(() => {
            if (!connected) giveUp("could not connect");
          }, connectMs),
        );
        socket.once(secure ? "secureConnect" : "connect", up);
      });
      request.on("finish", () => {
        if (settled) return;
        timers.push(
          setTimeout(() => {
            if (!answered) giveUp(`no answer within ${firstByteMs} ms`);
          }, firstByteMs),
        );
      });
      // Refused, reset, unreachable, a TLS failure: one wording, so an allow-listed range's port states and
      // addresses do not read back through the API; the log keeps the cause.
      request.on("error", (error) =>
        finish({
          error: connected ? "the connection failed before an answer" : "could not connect",
          detail: error.message,
        }),
      );
      request.on("response", (response) => {
        answered = true;
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
