/** Failed API calls as one typed error, whichever client-node path (API class or Watch) reported them. */
import { ApiException } from "@kubernetes/client-node";

/** A failed API call, from the server's Status body when there is one. */
export class KubeError extends Error {
  /** HTTP status code (404, 409, 410, 422, …). */
  readonly code: number;
  /** metav1.Status reason (NotFound, Conflict, AlreadyExists, Invalid, Expired, …). */
  readonly reason: string;
  constructor(code: number, reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeError";
    this.code = code;
    this.reason = reason;
  }
}

/** True when `err` is a KubeError with that HTTP code. */
export function isKubeError(err: unknown, code?: number): err is KubeError {
  return err instanceof KubeError && (code === undefined || err.code === code);
}

export function toKubeError(err: unknown): unknown {
  // Watch reports a non-200 answer as a plain Error carrying statusCode.
  const watchCode = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof watchCode === "number") return new KubeError(watchCode, "Unknown", String(err), { cause: err });
  if (!(err instanceof ApiException)) return err;
  let status: { reason?: string; message?: string } = {};
  try {
    status = typeof err.body === "string" ? JSON.parse(err.body) : (err.body ?? {});
  } catch {
    // Not a Status body (a proxy's HTML page, say): keep the code, lose the detail.
  }
  return new KubeError(err.code, status.reason ?? "Unknown", status.message ?? `HTTP ${err.code}`, {
    cause: err,
  });
}

export async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toKubeError(err);
  }
}
