import type { PoolClient, Queryable } from "../db/pool.ts";
import { envelopeRecipients } from "./address.ts";
import type { EmailStatus } from "./types.ts";

/** What a bounce or complaint report needs of the email it names. */
export interface ReportedEmail {
  id: string;
  account: string;
  status: EmailStatus;
  /** Every envelope recipient, bare and lower-cased, as delivery addressed them. */
  recipients: string[];
  /** Per-recipient outcome of the handover: `{ "<address>": { status, code, response } }`. */
  recipientResults: Record<string, { status?: string } & Record<string, unknown>>;
}

interface Row {
  id: string;
  account: string;
  status: EmailStatus;
  recipient_results: ReportedEmail["recipientResults"];
  to_addresses: string[];
  cc_addresses: string[];
  bcc_addresses: string[];
}

// The recipients in the same bare, lower-cased form accept decided the envelope with.
const toReported = (r: Row): ReportedEmail => ({
  id: r.id,
  account: r.account,
  status: r.status,
  recipients: envelopeRecipients([...r.to_addresses, ...r.cc_addresses, ...r.bcc_addresses]),
  recipientResults: r.recipient_results,
});

/** Locks an email (any account: the caller has authenticated the report) to apply a report's effects. */
export async function lockReportedEmail(client: PoolClient, id: string): Promise<ReportedEmail | undefined> {
  const { rows } = await client.query<Row>(
    `select id, account, status, recipient_results, to_addresses, cc_addresses, bcc_addresses
     from emails where id = $1 for update`,
    [id],
  );
  return rows[0] ? toReported(rows[0]) : undefined;
}

/** The id and account of the email that carried a Message-ID header (`<…>`), if Mailroom sent it. */
export async function findEmailByMessageId(
  db: Queryable,
  messageIdHeader: string,
): Promise<{ id: string; account: string } | undefined> {
  const { rows } = await db.query<{ id: string; account: string }>(
    `select id, account from emails where message_id_header = $1`,
    [messageIdHeader],
  );
  return rows[0];
}

/**
 * Records that a recipient the next hop had accepted bounced later: its result becomes `permanent` with the
 * remote diagnostic, and a `delivered` email whose every recipient has now failed becomes `bounced`. The
 * timeline event (and `email.bounced`) is the caller's, through appendEvents.
 */
export async function markRecipientBounced(
  client: PoolClient,
  email: ReportedEmail,
  recipient: string,
  result: { code: number | null; response: string },
): Promise<EmailStatus> {
  const results = { ...email.recipientResults, [recipient]: { status: "permanent", later: true, ...result } };
  const anyAccepted = Object.values(results).some((r) => r.status === "accepted");
  const status: EmailStatus = email.status === "delivered" && !anyAccepted ? "bounced" : email.status;
  await client.query(`select mailroom_set_recipient_results($1, $2, $3, $4)`, [
    email.id,
    JSON.stringify(results),
    status,
    `${recipient}: ${result.response}`,
  ]);
  email.recipientResults = results;
  email.status = status;
  return status;
}

/** Whether the email's timeline already has an event of `type` about `recipient` (a repeated report). */
export async function hasRecipientEvent(
  db: Queryable,
  emailId: string,
  type: string,
  recipient: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from email_events where email_id = $1 and type = $2 and detail->>'recipient' = $3 limit 1`,
    [emailId, type, recipient],
  );
  return rows.length > 0;
}
