import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { readTlsFiles, reloadTlsOnChange, type TlsMaterial } from "@mailroom/core/tls";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.ts";
import type { ApiDeps } from "./deps.ts";

export interface ApiServer {
  app: FastifyInstance;
  url: string;
  port: number;
  close(): Promise<void>;
}

// Kept here too: the API's callers and tests name them from the API package.
export { readTlsFiles, type TlsMaterial };

const TLS_HANDSHAKE = 0x16;
const FIRST_BYTE_TIMEOUT_MS = 10_000;

const HTTPS_REQUIRED_BODY = JSON.stringify({
  error: "https_required",
  message: "Mailroom accepts HTTPS only. Use https:// with the same host and port.",
});
const HTTPS_REQUIRED_RESPONSE = [
  "HTTP/1.1 403 Forbidden",
  "Content-Type: application/json",
  `Content-Length: ${Buffer.byteLength(HTTPS_REQUIRED_BODY)}`,
  "Connection: close",
  "",
  HTTPS_REQUIRED_BODY,
].join("\r\n");

/**
 * Listens for the API with TLS. One port, one gate: the first byte of each connection decides. A TLS
 * handshake goes on to the HTTPS server; anything else (plain HTTP) gets a fixed 403 `https_required` and the
 * connection is closed, so a plain-text request never reaches a route, and its key never leaves the socket.
 */
export async function startApiServer(deps: ApiDeps, tls: TlsMaterial): Promise<ApiServer> {
  const https: HttpsServer = createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: "TLSv1.2" });
  const app = buildApp(deps, {
    serverFactory: (handler) => {
      https.on("request", handler);
      return https;
    },
  });
  await app.ready();
  const stopReloading = reloadTlsOnChange(
    tls,
    deps.config.api.tlsReloadSeconds,
    ({ cert, key }) => https.setSecureContext({ cert, key, minVersion: "TLSv1.2" }),
    deps.logger,
  );

  const sockets = new Set<Socket>();
  const gate = createNetServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once("data", (chunk: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      if (chunk[0] === TLS_HANDSHAKE) {
        // The TLS socket consumes what is buffered on the raw socket first, so the hello is not lost.
        // Resuming here would instead flow it into a listener-less 'data' event.
        socket.unshift(chunk);
        https.emit("connection", socket);
        return;
      }
      deps.logger.warn({ remoteAddress: socket.remoteAddress }, "refused a plain-HTTP connection");
      socket.end(HTTPS_REQUIRED_RESPONSE);
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    gate.once("error", reject);
    gate.listen(deps.config.api.port, deps.config.api.host, () => resolve());
  });
  const port = (gate.address() as AddressInfo).port;
  const host = deps.config.api.host.includes(":") ? `[${deps.config.api.host}]` : deps.config.api.host;
  return {
    app,
    url: `https://${host}:${port}`,
    port,
    close: async () => {
      stopReloading();
      const closed = new Promise<void>((resolve) => gate.close(() => resolve()));
      // Finish in-flight requests, then drop whatever idles.
      await app.close();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
