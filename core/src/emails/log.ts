import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import { newId } from "../db/ids.ts";
import type { Pool, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { enqueueDeliver, removeDeliverJob } from "../jobs/index.ts";
import { type EmailRow, toEmailRecord } from "./rows.ts";
import { type EmailSearch, prefixUpperBound } from "./search.ts";
import type { EmailRecord, EmailStatus } from "./types.ts";

export interface EmailFilter {
  status?: EmailStatus | undefined;
  to?: string | undefined;
  from?: string | undefined;
  category?: string | undefined;
  tag?: { name: string; value: string } | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** `q`: subject words, sender or recipient prefixes, a Message-ID, a tag (search.ts). */
  search?: EmailSearch | undefined;
  /** Cursor: the id of the last email of the previous page. */
  after?: string | undefined;
  limit: number;
}

/**
 * How far an email's id time (the clock of the pod that accepted it) may be from its created_at (the
 * database's clock) for a time-range filter to still find it: the range is searched as an id range widened
 * by this much, then filtered exactly on created_at. The id is made before the transaction whose start is
 * its created_at, so an id is later than its created_at only by how far the pod's clock is ahead of the
 * database's (NTP keeps that to milliseconds), and earlier by that plus the wait for the transaction. The
 * newest page of a range walks back from `until` plus the slack over every email of that slack, filtered out
 * (issue 33 item 2: 5 minutes there were ~1,200 rows at the bench's rate, a cold read of 124 ms): a minute
 * above, five below.
 */
const ID_CLOCK_SLACK_BEFORE = "5 minutes";
const ID_CLOCK_SLACK_AHEAD = "1 minute";
const NIL = "00000000-0000-0000-0000-000000000000";
const MAX = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/**
 * One page of an account's email log, newest first. Ids are UUIDv7, so id order is creation order and the
 * cursor is simply the last id seen: stable under concurrent inserts, no offset scans. The cursor and the time
 * range also bound the id by two conditions without `is null or` (least() skips nulls), which Postgres can
 * prune `emails`' weekly partitions by when it starts the query (ADR 0055): a page past a cursor reads no week
 * newer than the cursor's, a time range only its weeks.
 */
export async function listEmails(
  db: Queryable,
  account: string,
  filter: EmailFilter,
): Promise<{ data: EmailRecord[]; hasMore: boolean }> {
  const rare = filter.search?.words.length ? await findRareWords(db, account, filter) : undefined;
  const { text, values } = listEmailsQuery(account, filter, rare);
  const { rows } = await db.query<EmailRow>(text, values);
  return { data: rows.slice(0, filter.limit).map(toEmailRecord), hasMore: rows.length > filter.limit };
}

/** Emails a search's words match, at most, for them to be looked up by id rather than walked to. */
const RARE_WORDS = 1000;

/**
 * The ids of the emails a search's words match within the page's bounds when there are at most RARE_WORDS,
 * else undefined (common words: the log's statement walks newest first). The planner cannot tell a rare word
 * from a common one (a LIKE is estimated at 1/10,000 of the rows at least), and at 10M it walked the
 * texts newest first for two words of which one matched nothing (2–4 s). This probe has no order: the
 * trigram index serves rare words, a scan that stops at RARE_WORDS + 1 rows common ones (ADR 0061).
 */
async function findRareWords(
  db: Queryable,
  account: string,
  filter: EmailFilter,
): Promise<string[] | undefined> {
  const { text, values } = rareWordsQuery(account, filter);
  const { rows } = await db.query<{ email_id: string }>(text, values);
  return rows.length > RARE_WORDS ? undefined : rows.map((r) => r.email_id);
}

/** @internal The probe of findRareWords, exported for the test that reads its plan. */
export function rareWordsQuery(account: string, filter: EmailFilter): { text: string; values: unknown[] } {
  const values: unknown[] = [
    account,
    filter.since ?? null,
    filter.until ?? null,
    filter.after ?? null,
    ID_CLOCK_SLACK_BEFORE,
    ID_CLOCK_SLACK_AHEAD,
    RARE_WORDS + 1,
  ];
  const likes = (filter.search?.words ?? []).map((pattern) => `search_text like $${values.push(pattern)}`);
  const text = `select email_id from email_search_texts where account = $1 and ${likes.join(" and ")}
     and email_id >= coalesce(mailroom_uuidv7_floor($2::timestamptz - $5::interval), '${NIL}')
     and email_id <= least($4::uuid, mailroom_uuidv7_floor($3::timestamptz + $6::interval), '${MAX}')
     limit $7`;
  return { text, values };
}

/**
 * @internal The log's statement and its parameters, exported for the tests that read its plan. The filters
 * are null parameters that fold away in the per-call plan; a search's terms are written out, one condition
 * per term of the index its shape chose (search.ts), as `and` (an `or` or a null test around a subquery would
 * keep the planner from joining it).
 */
export function listEmailsQuery(
  account: string,
  filter: EmailFilter,
  rareWordIds?: string[],
): { text: string; values: unknown[] } {
  const values = listEmailsParams(account, filter);
  const param = (value: unknown) => `$${values.push(value)}`;
  const search = filter.search;
  const terms = [
    // Rare words: the emails findRareWords found, by id. Common ones: every word in one condition on the
    // email's one text row, with the page's id bounds (cursor, time range) again inside: the planner does not
    // carry a range of `id` over to `email_id`, and without them a merge with a side table newest first walks
    // every email above the cursor (issue 33 item 2: over 30 s for a common sender's page 90 % deep at 10M).
    ...(search && search.words.length > 0 && rareWordIds
      ? [`id = any(${param(rareWordIds)}::uuid[])`]
      : search && search.words.length > 0
        ? [
            `id in (select email_id from email_search_texts where account = $1 and ${search.words
              .map((pattern) => `search_text like ${param(pattern)}`)
              .join(" and ")} and email_id >= ${LOWEST_ID} and email_id <= ${HIGHEST_ID})`,
          ]
        : []),
    ...(search?.addresses ?? []).map((prefix) => {
      const upper = prefixUpperBound(prefix);
      return `id in (select email_id from email_addresses where account = $1 and address >= ${param(prefix)}${
        upper === null ? "" : ` and address < ${param(upper)}`
      } and email_id >= ${LOWEST_ID} and email_id <= ${HIGHEST_ID})`;
    }),
    ...(search?.messageIds ?? []).map(({ header, id }) => {
      const byHeader = `lower(message_id_header) = ${param(header)}`;
      return id === undefined ? byHeader : `(${byHeader} or id = ${param(id)}::uuid)`;
    }),
    ...(search?.tags ?? []).map((tag) => `tags @> ${param(JSON.stringify([tag]))}::jsonb`),
  ];
  const text = LIST_EMAILS.replace("$SEARCH", () => terms.map((t) => `and ${t}`).join("\n       "));
  return { text, values };
}

/** The id bounds of a page: the time range's, widened by the clocks' slack, and the cursor. */
const LOWEST_ID = `coalesce(mailroom_uuidv7_floor($7 - $11::interval), '${NIL}')`;
const HIGHEST_ID = `least($9::uuid, mailroom_uuidv7_floor($8 + $12::interval), '${MAX}')`;

const LIST_EMAILS = `select * from emails
     where account = $1
       and ($2::text is null or status = $2)
       and ($3::text is null or to_addresses @> array[$3]::text[])
       and ($4::text is null or from_address = $4)
       and ($5::text is null or category = $5)
       and ($6::jsonb is null or tags @> $6::jsonb)
       and ($7::timestamptz is null or (created_at >= $7 and id >= mailroom_uuidv7_floor($7 - $11::interval)))
       and ($8::timestamptz is null or (created_at < $8 and id < mailroom_uuidv7_floor($8 + $12::interval)))
       and ($9::uuid is null or id < $9)
       $SEARCH
       and id >= ${LOWEST_ID}
       and id <= ${HIGHEST_ID}
     order by id desc
     limit $10`;

function listEmailsParams(account: string, filter: EmailFilter): unknown[] {
  return [
    account,
    filter.status ?? null,
    filter.to ?? null,
    filter.from ?? null,
    filter.category ?? null,
    filter.tag ? JSON.stringify([filter.tag]) : null,
    filter.since ?? null,
    filter.until ?? null,
    filter.after ?? null,
    filter.limit + 1,
    ID_CLOCK_SLACK_BEFORE,
    ID_CLOCK_SLACK_AHEAD,
  ];
}

const LEFT: readonly EmailStatus[] = ["sending", "delivered", "bounced", "failed"];

async function lockEmail(client: Queryable, account: string, id: string): Promise<EmailRow> {
  const { rows } = await client.query<EmailRow>(
    `select * from emails where id = $1 and account = $2 for update`,
    [id, account],
  );
  const row = rows[0];
  if (!row) throw new MailroomError("not_found", `No email ${id}.`);
  return row;
}

/**
 * Cancels an email that has not left (scheduled, queued or deferred) and removes its job. Canceling a
 * canceled email is a no-op; one that has left is a 409 `conflict`.
 */
export async function cancelEmail(
  pool: Pool,
  account: string,
  id: string,
  by?: AuditContext,
): Promise<EmailRecord> {
  return withTransaction(pool, async (client) => {
    const row = await lockEmail(client, account, id);
    if (row.status === "canceled") return toEmailRecord(row);
    if (LEFT.includes(row.status)) {
      throw new MailroomError(
        "conflict",
        `Email ${id} is ${row.status}: it has left and cannot be canceled.`,
      );
    }
    const { rows } = await client.query<EmailRow>(`select * from mailroom_cancel_email($1, $2)`, [
      id,
      newId(),
    ]);
    await removeDeliverJob(client, id);
    if (by) await recordAuditEvent(client, by, { account, action: "email.canceled", target: id });
    return toEmailRecord(rows[0] as EmailRow);
  });
}

/**
 * Moves an email that has not left to a new send time (replacing its job). A canceled email stays canceled:
 * 409 `conflict`, as does one that has left.
 */
export async function rescheduleEmail(
  pool: Pool,
  account: string,
  id: string,
  at: Date,
  by?: AuditContext,
): Promise<EmailRecord> {
  return withTransaction(pool, async (client) => {
    const row = await lockEmail(client, account, id);
    if (row.status === "canceled") {
      throw new MailroomError("conflict", `Email ${id} was canceled; send it again instead of rescheduling.`);
    }
    if (LEFT.includes(row.status)) {
      throw new MailroomError(
        "conflict",
        `Email ${id} is ${row.status}: it has left and cannot be rescheduled.`,
      );
    }
    const { rows } = await client.query<EmailRow>(`select * from mailroom_reschedule_email($1, $2, $3, $4)`, [
      id,
      at,
      newId(),
      JSON.stringify({ scheduledAt: at.toISOString() }),
    ]);
    await enqueueDeliver(client, [{ emailId: id, runAt: at, keyed: true }]);
    const detail = { scheduledAt: at.toISOString() };
    if (by) await recordAuditEvent(client, by, { account, action: "email.rescheduled", target: id, detail });
    return toEmailRecord(rows[0] as EmailRow);
  });
}
