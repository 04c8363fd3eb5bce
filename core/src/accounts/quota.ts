import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import type { AccountRecord } from "./record.ts";

/** Seconds from `now` to the end of the window that started at `start` and lasts `ms`. */
const secondsLeft = (start: Date, ms: number, now: Date) =>
  Math.max(1, Math.ceil((start.getTime() + ms - now.getTime()) / 1000));

const DAY_MS = 86_400_000;

/**
 * What the account's policy decides before anything is counted: a paused account sends nothing
 * (`sending_paused`), a category outside `allowedCategories` is refused (`category_not_allowed`), a batch over
 * the account's `batchSize` or larger than a whole second's quota can never pass (`validation_error`).
 */
export function checkAccountPolicy(
  account: AccountRecord,
  emails: { count: number; categories: readonly string[]; batch: boolean },
): void {
  if (account.sendingStatus === "paused") {
    throw new MailroomError(
      "sending_paused",
      `Sending is paused for account ${account.account}` +
        (account.paused?.reason ? ` (${account.paused.reason})` : "") +
        "; mail already accepted is held until the account is resumed (POST /v1/account/resume or its " +
        "AccountPolicy).",
    );
  }
  const allowed = account.allowedCategories;
  const refused = allowed ? emails.categories.find((c) => !allowed.includes(c)) : undefined;
  if (refused !== undefined) {
    throw new MailroomError(
      "category_not_allowed",
      `category: ${JSON.stringify(refused)} is not allowed for this account (allowed: ${allowed?.join(", ")}).`,
    );
  }
  if (emails.batch && account.batchSize !== null && emails.count > account.batchSize) {
    throw new MailroomError(
      "validation_error",
      `body: a batch of ${emails.count} emails is more than this account's batch size of ${account.batchSize}.`,
    );
  }
  if (account.emailsPerSecond !== null && emails.count > account.emailsPerSecond) {
    throw new MailroomError(
      "validation_error",
      `body: ${emails.count} emails in one request is more than this account's ${account.emailsPerSecond} ` +
        "emails per second; send fewer per request.",
    );
  }
}

/**
 * Counts `count` emails against the account's per-second and per-day quotas in Postgres (so they hold across
 * replicas and both doors), through `mailroom_count_account_sends`, or throws: `rate_limit_exceeded` with the
 * seconds to the next second (the spec's 429, retry with the same idempotencyKey) or `quota_exceeded` with
 * the seconds to the end of the UTC day. Accounts without quotas cost no statement. Run it in the accept's
 * transaction when there is one, so a rolled-back accept counts nothing.
 */
export async function countAccountSends(
  db: Queryable,
  account: AccountRecord,
  count: number,
  now: Date,
): Promise<void> {
  if (count === 0 || (account.emailsPerSecond === null && account.dailySendLimit === null)) return;
  const { rows } = await db.query<{ verdict: "ok" | "second" | "day"; used: number; window_start: Date }>(
    "select verdict, used, window_start from mailroom_count_account_sends($1, $2, $3, $4, $5)",
    [account.account, count, now, account.emailsPerSecond, account.dailySendLimit],
  );
  const row = rows[0];
  if (!row || row.verdict === "ok") return;
  if (row.verdict === "second") {
    const wait = secondsLeft(row.window_start, 1000, now);
    throw new MailroomError(
      "rate_limit_exceeded",
      `Too many emails: this account may send ${account.emailsPerSecond} per second. Retry after ${wait} s ` +
        "with the same idempotencyKey.",
      { retryable: true, retryAfterSeconds: wait },
    );
  }
  const wait = secondsLeft(row.window_start, DAY_MS, now);
  throw new MailroomError(
    "quota_exceeded",
    `Daily quota reached: this account may send ${account.dailySendLimit} emails per UTC day and has sent ` +
      `${row.used}. The quota resets at ${new Date(row.window_start.getTime() + DAY_MS).toISOString()}.`,
    { retryable: true, retryAfterSeconds: wait },
  );
}

/** The account's quota usage now: emails counted this second and this UTC day (0 when none were). */
export async function readAccountUsage(
  db: Queryable,
  account: string,
  now: Date,
): Promise<{ emailsThisSecond: number; emailsToday: number; dayResetsAt: Date }> {
  const { rows } = await db.query<{ second: number; day: number; day_start: Date }>(
    `select coalesce(sum(sent) filter (where period = 'second' and window_start = date_trunc('second', $2::timestamptz)), 0)::int as second,
            coalesce(sum(sent) filter (where period = 'day'
              and window_start = date_trunc('day', $2::timestamptz at time zone 'UTC') at time zone 'UTC'), 0)::int as day,
            date_trunc('day', $2::timestamptz at time zone 'UTC') at time zone 'UTC' as day_start
     from account_send_counters where account = $1`,
    [account, now],
  );
  const row = rows[0];
  return {
    emailsThisSecond: row?.second ?? 0,
    emailsToday: row?.day ?? 0,
    dayResetsAt: new Date((row?.day_start ?? now).getTime() + DAY_MS),
  };
}

/** Drops quota windows that have ended (seconds after 10 s, days after two days); the purge job calls it. */
export async function purgeAccountSendCounters(db: Queryable, now: Date = new Date()): Promise<number> {
  const result = await db.query(
    `delete from account_send_counters
     where (period = 'second' and window_start < $1::timestamptz - interval '10 seconds')
        or (period = 'day' and window_start < $1::timestamptz - interval '2 days')`,
    [now],
  );
  return result.rowCount ?? 0;
}
