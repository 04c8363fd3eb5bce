/**
 * The Mailroom API as `kubectl mailroom test-send` and `trace` reach it: at --url (a port-forward, an Ingress),
 * with the key of an ApiKey's Secret read through the Kubernetes API, so no key is ever typed or kept in shell
 * history. node:https rather than fetch: a private CA (--ca-file) and a server name that differs from the URL's
 * host (--tls-server-name, as kubectl's own flag) are per request.
 */
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { checkServerIdentity } from "node:tls";
import type { createKube } from "@mailroom/operator";

export interface ApiTarget {
  url: string;
  key: string;
  ca?: Buffer;
  serverName?: string;
}

export interface ApiOptions {
  url: string;
  keySecret: string;
  caFile?: string;
  tlsServerName?: string;
}

/** The key in Secret `keySecret` (key apiKey) of `namespace`, as the operator writes it for an ApiKey. */
export async function apiTarget(
  kube: ReturnType<typeof createKube>,
  namespace: string,
  options: ApiOptions,
): Promise<ApiTarget> {
  const secret = await kube.secrets.get(namespace, options.keySecret);
  const encoded = secret.data?.apiKey;
  if (!encoded) throw new Error(`Secret ${namespace}/${options.keySecret} has no apiKey`);
  return {
    url: options.url,
    key: Buffer.from(encoded, "base64").toString("utf8").trim(),
    ...(options.caFile ? { ca: await readFile(options.caFile) } : {}),
    ...(options.tlsServerName ? { serverName: options.tlsServerName } : {}),
  };
}

/** One call; resolves with the status and the parsed body (an error body is a result, not an exception). */
export function callApi(
  target: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, target.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ...(target.ca ? { ca: target.ca } : {}),
        ...(target.serverName ? { servername: target.serverName } : {}),
        // The certificate is checked against --tls-server-name instead of the URL's host (a port-forward's
        // localhost, say).
        ...(target.serverName
          ? {
              checkServerIdentity: (_host: string, cert: import("node:tls").PeerCertificate) =>
                checkServerIdentity(target.serverName as string, cert),
            }
          : {}),
        headers: {
          authorization: `Bearer ${target.key}`,
          accept: "application/json",
          ...(payload ? { "content-type": "application/json" } : {}),
        },
        timeout: 30_000,
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
          } catch {
            reject(new Error(`${method} ${url.pathname} answered HTTP ${res.statusCode}, not JSON: ${text}`));
          }
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${url.pathname}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}
