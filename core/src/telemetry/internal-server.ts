import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface InternalServer {
  port: number;
  close(): Promise<void>;
}

export interface InternalServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Readiness: true when the program can do its work (database reachable, listeners up). */
  ready: () => Promise<boolean>;
  /** Liveness beyond "the process answers" (the operator: its Lease renewed in time); /healthz 503 when false. */
  healthy?: () => boolean;
}

/**
 * The plain-HTTP internal port of a program: `/metrics` (Prometheus), `/healthz` (the process answers) and
 * `/readyz` (it can serve). Kept off the public TLS port so probes and scrapes never need an API key.
 */
export async function startInternalServer(options: InternalServerOptions): Promise<InternalServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const reply = (status: number, body: string, type = "text/plain; charset=utf-8") => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "method not allowed\n");
    if (path === "/healthz") {
      return options.healthy?.() === false ? reply(503, "unhealthy\n") : reply(200, "ok\n");
    }
    if (path === "/readyz") {
      options.ready().then(
        (ok) => reply(ok ? 200 : 503, ok ? "ready\n" : "not ready\n"),
        () => reply(503, "not ready\n"),
      );
      return;
    }
    if (path === "/metrics") {
      options.registry.metrics().then(
        (text) => reply(200, text, options.registry.contentType),
        () => reply(500, "metrics unavailable\n"),
      );
      return;
    }
    reply(404, "not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
