/**
 * The ceiling of the batch scenario, measured in the same run: the database work of POST /v1/send/batch
 * alone. core's `acceptEmails` (the statement the batch route runs, in one transaction per 100 emails) is
 * called straight from this process on its own connections, with the bench's emails already normalised: no
 * HTTP, TLS, JSON parsing, validation or authentication in front of it. The API cannot accept batches faster
 * than Postgres does this work.
 */

import { createPool, withTransaction } from "@mailroom/core/db";
import { acceptEmails, normalizeSendRequest, type SendRequestBody } from "@mailroom/core/emails";
import type { BenchDatabase } from "../shared/support.ts";
import { BATCH_SIZE, email } from "./protocol.ts";

export interface AcceptCeiling {
  emails: number;
  seconds: number;
  inFlight: number;
  emailsPerSec: number;
  /** Postgres CPU over the measured period, as a share of one core (undefined when not measurable). */
  postgresCpu: number | undefined;
  /**
   * WAL the server wrote over the measured period, per email accepted (autovacuum's share included): what each
   * accept's commit waits to flush, and what a flood puts in the one WAL stream ahead of a quiet tenant's
   * commits (ADR 0077).
   */
  walBytesPerEmail: number;
}

/** Accepts batches of `BATCH_SIZE` emails, `inFlight` transactions at a time, for `seconds` (after a warm-up). */
export async function measureAcceptCeiling(
  db: BenchDatabase,
  account: string,
  apiKeyId: string,
  options: { seconds: number; warmupSeconds: number; inFlight: number; runId: string },
): Promise<AcceptCeiling> {
  const pool = createPool({ url: db.url, max: options.inFlight, applicationName: "bench-ceiling" });
  let sequence = 0;
  const batch = () =>
    Array.from({ length: BATCH_SIZE }, (_, i) => {
      const body = email(`${options.runId}-ceiling-${sequence}.${i}`, i) as unknown as SendRequestBody;
      return { ...normalizeSendRequest(body), account, apiKeyId };
    });
  const run = async (seconds: number) => {
    const until = performance.now() + seconds * 1000;
    let emails = 0;
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (performance.now() < until) {
          sequence += 1;
          const items = batch();
          const results = await withTransaction(pool, (client) =>
            acceptEmails(client, { hostname: "bench.example" }, items),
          );
          const queued = results.filter((r) => r.status === "queued").length;
          if (queued !== items.length) throw new Error(`ceiling: ${queued}/${items.length} queued`);
          emails += queued;
        }
      }),
    );
    return emails;
  };
  try {
    await run(options.warmupSeconds);
    const walBefore = await pool.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn");
    const started = performance.now();
    const cpuBefore = db.cpuMs?.();
    const emails = await run(options.seconds);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = db.cpuMs?.();
    const wal = await pool.query<{ bytes: number }>(
      "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::float8 as bytes",
      [walBefore.rows[0]?.lsn],
    );
    return {
      emails,
      seconds,
      inFlight: options.inFlight,
      emailsPerSec: emails / seconds,
      walBytesPerEmail: (wal.rows[0]?.bytes ?? 0) / Math.max(1, emails),
      postgresCpu:
        cpuBefore !== undefined && cpuAfter !== undefined
          ? (cpuAfter - cpuBefore) / 1000 / seconds
          : undefined,
    };
  } finally {
    await pool.end();
  }
}
