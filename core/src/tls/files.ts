import { readFile } from "node:fs/promises";
import type { Logger } from "../telemetry/logger.ts";

/** A certificate and its key, as every TLS server of Mailroom (HTTPS API, SMTP) serves them. */
export interface TlsMaterial {
  cert: string | Buffer;
  key: string | Buffer;
  /** The files they were read from: re-read on a timer, so a renewal needs no restart. */
  files?: { certFile: string; keyFile: string };
}

/** Reads the TLS certificate and key named in config. */
export async function readTlsFiles(files: { certFile: string; keyFile: string }): Promise<TlsMaterial> {
  const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
  return { cert, key, files: { certFile: files.certFile, keyFile: files.keyFile } };
}

/**
 * Re-reads the certificate files every `seconds` and, when they changed, hands the new pair to `apply` (which
 * serves it to new connections; open ones keep theirs). A pair that cannot be read is logged and skipped, so
 * a half-written renewal never takes a server down. Returns the timer's stop.
 */
export function reloadTlsOnChange(
  tls: TlsMaterial,
  seconds: number,
  apply: (material: { cert: Buffer | string; key: Buffer | string }) => void,
  logger: Logger,
): () => void {
  const files = tls.files;
  if (!files || seconds <= 0) return () => {};
  let current = Buffer.concat([Buffer.from(tls.cert), Buffer.from(tls.key)]);
  const timer = setInterval(() => {
    void readTlsFiles(files)
      .then(({ cert, key }) => {
        const next = Buffer.concat([Buffer.from(cert), Buffer.from(key)]);
        if (next.equals(current)) return;
        apply({ cert, key });
        current = next;
        logger.info({ certFile: files.certFile }, "serving the renewed TLS certificate");
      })
      .catch((error: unknown) => {
        logger.warn(
          { err: error, certFile: files.certFile },
          "could not load the TLS certificate and key; still serving the previous pair",
        );
      });
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
