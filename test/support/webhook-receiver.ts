import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** How the receiver answers one request: a status (with optional headers and body), or never ("hang"). */
export type ReceiverAnswer =
  | { status: number; retryAfter?: string; location?: string; body?: string }
  | "hang";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The secrets (of those the receiver knows) whose signature verified, per the reference library. */
  verifiedWith: string[];
  /** The parsed payload when at least one secret verified. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  /** Milliseconds since the receiver started. */
  at: number;
  answer: ReceiverAnswer;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  received: ReceivedWebhook[];
  /** Secrets to verify with; a request is `verified` when any of them accepts it. */
  setSecrets(...secrets: string[]): void;
  /** How to answer from now on; a function decides per request. Unverified requests always get 401. */
  respond(answer: ReceiverAnswer | ((request: ReceivedWebhook, index: number) => ReceiverAnswer)): void;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP webhook receiver on 127.0.0.1 that checks every request with `standardwebhooks`, the Standard
 * Webhooks reference library, never with Mailroom's own signer. Scripted answers cover the cases a sender
 * must handle: 2xx, 4xx, 410, 429 with Retry-After, 5xx, redirects, and a receiver that never answers.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const started = performance.now();
  let secrets: string[] = [];
  let decide: (request: ReceivedWebhook, index: number) => ReceiverAnswer = () => ({ status: 204 });
  const received: ReceivedWebhook[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = req.headers as Record<string, string>;
      let payload: ReceivedWebhook["payload"];
      const verifiedWith = secrets.filter((secret) => {
        try {
          payload = new Webhook(secret).verify(body, headers) as ReceivedWebhook["payload"];
          return true;
        } catch {
          return false;
        }
      });
      const entry: ReceivedWebhook = {
        path: req.url ?? "",
        headers: req.headers,
        body,
        verifiedWith,
        payload,
        at: performance.now() - started,
        answer: { status: 401 },
      };
      if (verifiedWith.length > 0) entry.answer = decide(entry, received.length);
      received.push(entry);
      const due = waiters.filter((w) => received.length >= w.count);
      waiters = waiters.filter((w) => received.length < w.count);
      for (const waiter of due) waiter.resolve();
      const answer = entry.answer;
      if (answer === "hang") return;
      if (answer.retryAfter) res.setHeader("retry-after", answer.retryAfter);
      if (answer.location) res.setHeader("location", answer.location);
      res.writeHead(answer.status).end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    setSecrets: (...next) => {
      secrets = next;
    },
    respond: (answer) => {
      decide = typeof answer === "function" ? answer : () => answer;
    },
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= count) return resolve(received.slice(0, count));
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
