/**
 * What the send benchmark's processes say to each other (over fork IPC), and the request bodies the load
 * generator sends. Shared by bench/send/main.ts (orchestrator), server.ts and load.ts.
 */

export type ScenarioKind = "baseline" | "durable" | "send" | "batch";

export const BATCH_SIZE = 100;

/** Emails each 2xx answer stands for. */
export const emailsPerRequest = (kind: ScenarioKind): number => (kind === "batch" ? BATCH_SIZE : 1);

export interface ServerJob {
  mode: "baseline" | "durable" | "api";
  databaseUrl: string;
  certFile: string;
  keyFile: string;
}

export interface PhaseStats {
  seconds: number;
  rssPeakMb: number;
  rssMeanMb: number;
  /** The kernel's high-water mark of the process's RSS (VmHWM in /proc/self/status): it misses no spike. */
  rssHwmMb: number;
  /** CPU time of the server process over the phase, user + system. */
  cpuMs: number;
  /** What the sampled RSS peak was made of: V8's heap (reserved, and in use) and memory outside it. */
  atPeak: { heapTotalMb: number; heapUsedMb: number; externalMb: number };
  /** Garbage-collection pauses of the main thread over the phase (perf_hooks "gc" entries). */
  gc: { count: number; pausedMs: number; longestMs: number };
  /** Event-loop delay over the phase (perf_hooks.monitorEventLoopDelay), ms. */
  loopDelayP99Ms: number;
}

export type ServerMessage =
  | { type: "ready"; port: number; poolSize: number; logLevel: string }
  | { type: "phase"; stats: PhaseStats };

export type ServerCommand = { type: "phase-start" } | { type: "phase-end" } | { type: "stop" };

export interface LoadJob {
  kind: ScenarioKind;
  url: string;
  /** TLS server name: the certificate's DNS name, while the URL names the loopback address. */
  servername: string;
  ca: string;
  path: string;
  apiKey?: string;
  connections: number;
  seconds: number;
  /** Makes every idempotency key of the run unique. */
  keyPrefix: string;
}

export interface LoadReport {
  seconds: number;
  /** Requests written to a socket; those not answered when the clock stopped were abandoned mid-flight. */
  sent: number;
  answered: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  latency: { p50: number; p99: number; mean: number; max: number };
  /** The row id (baselines) or messageId of every email a 2xx answer reported. */
  ids: string[];
  /** First few answers that did not look as expected (a 2xx with a status other than queued, …). */
  anomalies: string[];
  cpuMs: number;
}

export type LoadMessage = { type: "tick"; count: number } | { type: "done"; report: LoadReport };

// A typical small transactional email: a few hundred bytes of JSON, text and HTML parts.
export function email(key: string, recipient: number): Record<string, unknown> {
  return {
    from: "Acme Receipts <receipts@acme.example>",
    to: `customer-${recipient}@example.net`,
    subject: "Your receipt #48213",
    text: "Thanks for your order. Your receipt is attached to your account; reply to this email with questions.",
    html: "<p>Thanks for your order.</p><p>Your receipt is in your account. Reply with any questions.</p>",
    tags: [{ name: "kind", value: "receipt" }],
    idempotencyKey: key,
  };
}

/** The body of one request of a scenario; `key` is unique per request. */
export function requestBody(kind: ScenarioKind, key: string, sequence: number): string {
  if (kind !== "batch") return JSON.stringify(email(key, sequence % 10_000));
  return JSON.stringify(Array.from({ length: BATCH_SIZE }, (_, i) => email(`${key}.${i}`, i)));
}
