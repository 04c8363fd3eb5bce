import { request } from "node:https";
import type { SsrfGuard } from "../webhooks/ssrf.ts";

export interface ReportPostOptions {
  guard: SsrfGuard;
  timeoutMs: number;
  /** Extra trusted CAs (tests); the system's roots otherwise. */
  ca?: string | Buffer | undefined;
}

/** Whether the receiver took the report (2xx), else why not: a class of failure, never its answer's body. */
export type PostOutcome = { ok: true } | { ok: false; error: string };

/**
 * POSTs a gzip report to an `https:` report URI (RFC 8460 §5.4, `application/tlsrpt+gzip`), through the SSRF
 * guard of webhooks: the name is resolved and every address checked, and the checked address is the one
 * connected to (no second lookup to rebind), with the name kept for SNI and the certificate check. Redirects
 * are not followed (§5.4). Never throws.
 */
export async function postReport(
  uri: string,
  body: Buffer,
  options: ReportPostOptions,
): Promise<PostOutcome> {
  let target: Awaited<ReturnType<SsrfGuard["resolveTarget"]>>;
  try {
    target = await options.guard.resolveTarget(uri);
  } catch (error) {
    return { ok: false, error: `refused: ${(error as Error).message}` };
  }
  if (target.url.protocol !== "https:") return { ok: false, error: "refused: not an https URI" };
  return new Promise((resolve) => {
    const req = request(
      {
        host: target.address,
        family: target.family,
        port: target.url.port || 443,
        path: `${target.url.pathname}${target.url.search}`,
        method: "POST",
        ...(target.servername ? { servername: target.servername } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        agent: false,
        headers: {
          host: target.url.host,
          "content-type": "application/tlsrpt+gzip",
          "content-length": String(body.length),
          "user-agent": "Mailroom-TLSRPT/1",
        },
        timeout: options.timeoutMs,
      },
      (res) => {
        // The answer's body is not ours to keep; read it away so the socket closes cleanly.
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(status >= 200 && status < 300 ? { ok: true } : { ok: false, error: `HTTP ${status}` });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on("error", (error) => resolve({ ok: false, error: error.message.slice(0, 200) }));
    req.end(body);
  });
}
