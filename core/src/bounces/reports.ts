import { newId } from "../db/ids.ts";
import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { enqueueProcessReport } from "../jobs/index.ts";

/** A report as the SMTP receiver got it, before anything is read from it. */
export interface IncomingReport {
  remoteAddress: string;
  helo: string | undefined;
  mailFrom: string | undefined;
  rcptTo: readonly string[];
  raw: Buffer;
}

export interface StoredReport extends IncomingReport {
  id: string;
  receivedAt: Date;
  status: "received" | "processed" | "ignored";
}

/**
 * Stores a report and its `process_report` job in one transaction: when this resolves the report is durable
 * and will be processed, so the receiver may answer 250. Returns the report's id.
 */
export async function storeReport(pool: Pool, report: IncomingReport): Promise<string> {
  const id = newId();
  await withTransaction(pool, async (client) => {
    await client.query(
      `insert into inbound_reports (id, remote_address, helo, mail_from, rcpt_to, raw)
       values ($1, $2, $3, $4, $5, $6)`,
      [id, report.remoteAddress, report.helo ?? null, report.mailFrom ?? null, report.rcptTo, report.raw],
    );
    await enqueueProcessReport(client, id);
  });
  return id;
}

/** A stored report locked for processing, or undefined when it is gone or already done. */
export async function lockReport(client: PoolClient, id: string): Promise<StoredReport | undefined> {
  const { rows } = await client.query<{
    id: string;
    received_at: Date;
    remote_address: string;
    helo: string | null;
    mail_from: string | null;
    rcpt_to: string[];
    raw: Buffer;
    status: StoredReport["status"];
  }>(`select * from inbound_reports where id = $1 and status = 'received' for update`, [id]);
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    receivedAt: row.received_at,
    remoteAddress: row.remote_address,
    helo: row.helo ?? undefined,
    mailFrom: row.mail_from ?? undefined,
    rcptTo: row.rcpt_to,
    raw: row.raw,
    status: row.status,
  };
}

/** Records what processing found and did; `ignored` when the report changed nothing. */
export async function finishReport(
  client: PoolClient,
  id: string,
  status: "processed" | "ignored",
  outcome: Record<string, unknown>,
): Promise<void> {
  await client.query(
    `update inbound_reports set status = $2, outcome = $3, processed_at = now() where id = $1`,
    [id, status, JSON.stringify(outcome)],
  );
}

/** What became of a report (for tests and operators). */
export async function getReportOutcome(
  db: Queryable,
  id: string,
): Promise<{ status: StoredReport["status"]; outcome: Record<string, unknown> | null } | undefined> {
  const { rows } = await db.query<{
    status: StoredReport["status"];
    outcome: Record<string, unknown> | null;
  }>(`select status, outcome from inbound_reports where id = $1`, [id]);
  return rows[0];
}

/** Forgets processed reports older than the retention period; their effects stay on the emails. */
export async function purgeReports(db: Queryable, retentionHours: number, now: Date = new Date()) {
  const result = await db.query(
    `delete from inbound_reports
     where status <> 'received' and received_at < $1::timestamptz - make_interval(hours => $2)`,
    [now, retentionHours],
  );
  return result.rowCount ?? 0;
}
