/** The control plane's API as its admin sees it, reachable from the test workers (plain values, no process). */
import { writeFile } from "node:fs/promises";
import { request } from "node:https";
import os from "node:os";
import path from "node:path";

export interface ApiConnection {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** PEM of the CA that signed the API server's certificate. */
  readonly ca: string;
  /** The admin's bearer token (group system:masters). */
  readonly adminToken: string;
}

export interface ApiResponse {
  status: number;
  body: unknown;
}

/** Calls the API server as its admin; resolves with any status (a non-2xx is a result, not an exception). */
export function apiRequest(
  api: ApiConnection,
  method: string,
  apiPath: string,
  body?: unknown,
  contentType = "application/json",
): Promise<ApiResponse> {
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.url}${apiPath}`,
      {
        method,
        ca: api.ca,
        headers: {
          authorization: `Bearer ${api.adminToken}`,
          accept: "application/json",
          ...(payload === undefined ? {} : { "content-type": contentType }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // /readyz answers text.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Writes a kubeconfig for `api` that authenticates as `name` with `token`; returns its path. */
export async function writeKubeconfig(
  api: Pick<ApiConnection, "url" | "ca">,
  name: string,
  token: string,
  dir = os.tmpdir(),
): Promise<string> {
  const file = path.join(dir, `mailroom-${name}-${process.pid}.kubeconfig`);
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "test",
        cluster: { server: api.url, "certificate-authority-data": Buffer.from(api.ca).toString("base64") },
      },
    ],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: "test", user: name } }],
    "current-context": name,
  };
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}
