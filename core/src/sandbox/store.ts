import { isUuid, newId } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";

/**
 * `sandbox_messages`, the captured mail of every account (issue 30, ADR 0047): written by the capture
 * transport (the worker, for sandbox emails) and by `mailroom run`'s local SMTP capture, read and deleted
 * by the dev inbox. The one module that writes the table. Every read and delete names one account.
 */

export interface CapturedInput {
  emailId: string;
  account: string;
  envelopeFrom: string;
  recipients: readonly string[];
  subject: string;
  raw: Buffer;
}

/** Stores one captured SMTP transaction; answers its id. Durable when the statement returns. */
export async function captureMessage(db: Queryable, input: CapturedInput): Promise<string> {
  const id = newId();
  await db.query(
    `insert into sandbox_messages (id, email_id, account, envelope_from, recipients, subject, raw)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [id, input.emailId, input.account, input.envelopeFrom, [...input.recipients], input.subject, input.raw],
  );
  return id;
}

/** Which of an account's captured messages: `to` one envelope recipient (any case), `subject` containing text. */
export interface CapturedFilter {
  to?: string | undefined;
  subject?: string | undefined;
}

export interface CapturedRow {
  id: string;
  emailId: string;
  envelopeFrom: string;
  recipients: string[];
  raw: Buffer;
  receivedAt: Date;
}

interface Row {
  id: string;
  email_id: string;
  envelope_from: string;
  recipients: string[];
  raw: Buffer;
  received_at: Date;
}

const toCaptured = (r: Row): CapturedRow => ({
  id: r.id,
  emailId: r.email_id,
  envelopeFrom: r.envelope_from,
  recipients: r.recipients,
  raw: r.raw,
  receivedAt: r.received_at,
});

// $1 account, $2 to, $3 subject: a null filter matches everything.
const MATCHES = `account = $1
  and ($2::text is null or exists (select 1 from unnest(recipients) r where lower(r) = lower($2)))
  and ($3::text is null or strpos(lower(subject), lower($3)) > 0)`;

const filterValues = (account: string, filter: CapturedFilter) => [
  account,
  filter.to ?? null,
  filter.subject ?? null,
];

/** The account's newest `limit` captured messages that match, newest first (ids are time-ordered). */
export async function listCaptured(
  db: Queryable,
  account: string,
  filter: CapturedFilter,
  limit: number,
): Promise<CapturedRow[]> {
  const { rows } = await db.query<Row>(
    `select id, email_id, envelope_from, recipients, raw, received_at from sandbox_messages
     where ${MATCHES} order by id desc limit $4`,
    [...filterValues(account, filter), limit],
  );
  return rows.map(toCaptured);
}

/** One of the account's captured messages; undefined for another account's id or one that is not a uuid. */
export async function findCaptured(
  db: Queryable,
  account: string,
  id: string,
): Promise<CapturedRow | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<Row>(
    `select id, email_id, envelope_from, recipients, raw, received_at from sandbox_messages
     where account = $1 and id = $2`,
    [account, id],
  );
  return rows[0] ? toCaptured(rows[0]) : undefined;
}

/** Deletes the account's captured messages that match; answers how many. */
export async function deleteCaptured(
  db: Queryable,
  account: string,
  filter: CapturedFilter,
): Promise<number> {
  const { rowCount } = await db.query(
    `delete from sandbox_messages where ${MATCHES}`,
    filterValues(account, filter),
  );
  return rowCount ?? 0;
}
