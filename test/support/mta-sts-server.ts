import { createServer } from "node:https";
import { freePort } from "./ports.ts";

/** An MTA-STS policy host: HTTPS on loopback, serving each domain's policy by the Host it is asked for. */
export interface MtaStsServer {
  port: number;
  /** Serves `body` (text/plain) as the policy of `domain`; `undefined` answers 404. */
  setPolicy(domain: string, body: string | undefined): void;
  /** Policy requests received for `domain`. */
  fetches(domain: string): number;
  close(): Promise<void>;
}

/** A policy body from its fields, e.g. `stsPolicy("enforce", ["mx.a.test"])`. */
export function stsPolicy(mode: "enforce" | "testing" | "none", mx: string[], maxAge = 86_400): string {
  return ["version: STSv1", `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), `max_age: ${maxAge}`, ""].join(
    "\r\n",
  );
}

/** Starts the policy host with `tls` (a certificate for every `mta-sts.<domain>` the test uses). */
export async function startMtaStsServer(tls: { key: string; cert: string }): Promise<MtaStsServer> {
  const policies = new Map<string, string>();
  const counts = new Map<string, number>();
  const server = createServer(tls, (req, res) => {
    const host = String(req.headers.host ?? "").replace(/:\d+$/, "");
    const domain = host.replace(/^mta-sts\./, "");
    counts.set(domain, (counts.get(domain) ?? 0) + 1);
    const body = req.url === "/.well-known/mta-sts.txt" ? policies.get(domain) : undefined;
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(body);
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    port,
    setPolicy(domain, body) {
      if (body === undefined) policies.delete(domain);
      else policies.set(domain, body);
    },
    fetches: (domain) => counts.get(domain) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
