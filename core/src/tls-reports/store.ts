import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { purgeTransitCounts } from "../transit/store.ts";
import type { TlsReport } from "./report.ts";

// The one writer of `tls_reports` and `tls_report_sends` (and the purge of `tls_sessions`).

/** A report URI's send still to make, with its report. */
export interface PendingSend {
  reportId: string;
  rua: string;
  attempts: number;
  policyDomain: string;
  day: string;
  report: TlsReport;
}

/** How one send ended: delivered to the URI or accepted as an email, or failed (kept pending until the cap). */
export type SendResult = { ok: true; emailId?: string } | { ok: false; error: string };

// Sends are tried on each hourly run until this many attempts have failed.
export const MAX_SEND_ATTEMPTS = 5;

const day = (at: Date, back = 0) => new Date(at.getTime() - back * 86_400_000).toISOString().slice(0, 10);

/** Policy domains with sessions on a finished day (of the last `lookbackDays`) and no report made yet. */
export async function findDueReports(
  db: Queryable,
  now: Date,
  lookbackDays: number,
): Promise<{ policyDomain: string; day: string }[]> {
  const { rows } = await db.query<{ policyDomain: string; day: string }>(
    `select distinct s.policy_domain as "policyDomain", to_char(s.day, 'YYYY-MM-DD') as day
     from tls_sessions s
     where s.day < $1::date and s.day >= $2::date
       and not exists (select 1 from tls_reports r where r.policy_domain = s.policy_domain and r.day = s.day)
     order by 2, 1 limit 1000`,
    [day(now), day(now, lookbackDays)],
  );
  return rows;
}

/**
 * Keeps a (policy domain, day) report once, with a pending send per report URI; a domain that asked for none
 * is kept with no report, so it is not looked up again for that day. A second call for the same pair (a rerun,
 * a twin worker) changes nothing.
 */
export async function saveReport(
  db: Queryable,
  input: { policyDomain: string; day: string; reportId: string; rua: readonly string[]; report?: TlsReport },
): Promise<void> {
  await db.query(
    `with r as (
       insert into tls_reports (policy_domain, day, report_id, rua, report)
       values ($1, $2::date, $3, $4::text[], $5::jsonb)
       on conflict do nothing
       returning report_id
     )
     insert into tls_report_sends (report_id, rua, status)
     select r.report_id, u.rua, 'pending' from r, unnest($4::text[]) as u(rua)`,
    [
      input.policyDomain,
      input.day,
      input.reportId,
      input.rua,
      input.report ? JSON.stringify(input.report) : null,
    ],
  );
}

/** Sends still pending, of reports of the last `lookbackDays`. */
export async function findPendingSends(
  db: Queryable,
  now: Date,
  lookbackDays: number,
): Promise<PendingSend[]> {
  const { rows } = await db.query<PendingSend>(
    `select s.report_id as "reportId", s.rua, s.attempts, r.policy_domain as "policyDomain",
            to_char(r.day, 'YYYY-MM-DD') as day, r.report
     from tls_report_sends s join tls_reports r using (report_id)
     where s.status = 'pending' and r.day >= $1::date
     order by r.day, s.report_id, s.rua limit 1000`,
    [day(now, lookbackDays)],
  );
  return rows;
}

/**
 * Makes one send under its row's lock, in one transaction: `send` runs only while the send is still pending
 * and no other run holds it (`skip locked`), and its result is written in the same transaction. A mailto
 * send accepts its email on the same client, so the email exists exactly when the send is marked sent.
 * Returns undefined when another run had it or it was done already.
 */
export async function withPendingSend(
  pool: Pool,
  key: { reportId: string; rua: string },
  send: (client: PoolClient) => Promise<SendResult>,
): Promise<SendResult | undefined> {
  const client = await pool.connect();
  let released = false;
  try {
    await client.query("begin");
    const { rows } = await client.query<{ attempts: number }>(
      `select attempts from tls_report_sends where report_id = $1 and rua = $2 and status = 'pending'
       for update skip locked`,
      [key.reportId, key.rua],
    );
    const held = rows[0];
    if (!held) {
      await client.query("rollback");
      return undefined;
    }
    await client.query("savepoint send");
    const result = await send(client).catch(async (error: unknown): Promise<SendResult> => {
      // The send's own writes (a half-accepted email) go; the attempt is still counted.
      await client.query("rollback to savepoint send");
      return { ok: false, error: (error as Error).message };
    });
    const attempts = held.attempts + 1;
    await client.query(
      `update tls_report_sends
       set status = $3, attempts = $4, last_error = $5, email_id = $6, updated_at = now()
       where report_id = $1 and rua = $2`,
      [
        key.reportId,
        key.rua,
        result.ok ? "sent" : attempts >= MAX_SEND_ATTEMPTS ? "failed" : "pending",
        attempts,
        result.ok ? null : result.error.slice(0, 1024),
        result.ok ? (result.emailId ?? null) : null,
      ],
    );
    await client.query("commit");
    return result;
  } catch (error) {
    const broken = await client.query("rollback").then(
      () => undefined,
      (rollbackError: Error) => rollbackError,
    );
    client.release(broken);
    released = true;
    throw error;
  } finally {
    if (!released) client.release();
  }
}

// How long counts and reports are kept: long enough to answer a receiver asking about last month.
const KEEP_DAYS = 30;

/**
 * Drops counts and reports of days more than 30 days before `now` (run hourly, reports on or off), and the
 * transit counts written with the session counts (ADR 0066).
 */
export async function purgeTlsReportData(db: Queryable, now: Date): Promise<void> {
  await db.query(`delete from tls_sessions where day < $1::date`, [day(now, KEEP_DAYS)]);
  await purgeTransitCounts(db, now);
  await db.query(`delete from tls_reports where day < $1::date`, [day(now, KEEP_DAYS)]);
}
