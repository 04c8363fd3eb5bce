/**
 * What the delivery benchmark's processes say to each other (fork IPC), and the email they all send. Shared
 * by the orchestrator (bench/delivery/main.ts and its phase modules), sink.ts, baseline.ts and
 * worker.ts.
 * Times crossing processes are wall-clock milliseconds with sub-millisecond precision
 * (`performance.timeOrigin + performance.now()`), comparable between processes of one machine.
 */

export const now = (): number => performance.timeOrigin + performance.now();

/** The sending domain: verified in the bench's database, its RSA-2048 DKIM key shared with the baseline. */
export const DOMAIN = "acme.bench";
export const FROM_ADDRESS = `receipts@${DOMAIN}`;
export const FROM = `Acme Receipts <${FROM_ADDRESS}>`;
export const SUBJECT = "Your receipt #48213";
export const TEXT =
  "Thanks for your order. Your receipt is attached to your account; reply to this email with questions.";
export const HTML =
  "<p>Thanks for your order.</p><p>Your receipt is in your account. Reply with any questions.</p>";
export const CATEGORY = "receipts";
export const recipient = (i: number) => `customer-${i % 10_000}@example.net`;

// ── the SMTP sink ──────────────────────────────────────────────────────────────────────────────────────────
export type SinkCommand =
  | { type: "reset" }
  | { type: "count" }
  | { type: "report"; samples: number }
  | { type: "stop" };

/**
 * One Message-ID as the sink saw it: how often, when first (end of DATA), whether DKIM-signed every time, and
 * when that first delivery's SMTP transaction began (MAIL FROM: the sender had its message signed by then).
 */
export type Arrival = [messageId: string, at: number, count: number, dkimSigned: boolean, mailFromAt: number];

export interface SinkReport {
  arrivals: Arrival[];
  /** Messages without a Message-ID header. */
  withoutId: number;
  /** The first few raw messages since the reset, for an independent DKIM check. */
  samples: Buffer[];
  /** CPU of the sink process since the reset, user + system. */
  cpuMs: number;
}

export type SinkMessage =
  | { type: "ready"; port: number }
  | { type: "reset" }
  | { type: "count"; count: number }
  | { type: "report"; report: SinkReport };

// ── the baseline sender (nodemailer's pooled SMTP transport with its own DKIM signer) ────────────────────
export interface BaselineJob {
  smtpUrl: string;
  heloName: string;
  concurrency: number;
  warmup: number;
  count: number;
  /** Message-IDs are `<${idPrefix}-${i}@${DOMAIN}>`. */
  idPrefix: string;
  /** The key the sender signs with; absent when a peer in between signs (bench/peer/main.ts). */
  dkim?: { domainName: string; keySelector: string; privateKeyPem: string };
}

export interface BaselineResult {
  startedAt: number;
  endedAt: number;
  sent: number;
  errors: string[];
  cpuMs: number;
}

/** The job first; `go` after the orchestrator has seen `warm` and reset the sink. */
export type BaselineCommand = BaselineJob | { type: "go" };

export type BaselineMessage = { type: "warm" } | { type: "done"; result: BaselineResult };

// ── the Mailroom worker ────────────────────────────────────────────────────────────────────────────────────
export interface WorkerJob {
  databaseUrl: string;
  smtpUrl: string;
  /** The key-encryption key the bench created the domain under, base64. */
  kek: string;
}

export type WorkerCommand = { type: "phase-start" } | { type: "phase-end" } | { type: "stop" };

export type WorkerMessage =
  | { type: "ready"; concurrency: number; lanes: readonly string[]; poolSize: number; logLevel: string }
  | { type: "phase"; cpuMs: number; mainThreadCpuMs: number; rssPeakMb: number };
