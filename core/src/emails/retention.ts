import type { Queryable } from "../db/pool.ts";
import type { PurgeOptions } from "../db/purge.ts";
import { dropExpiredTimelinePartitions } from "./timeline-partitions.ts";

/** The statuses an email never leaves: only these are purged, whatever their age. */
const FINISHED = ["delivered", "bounced", "failed", "canceled"];
const DAY_MS = 86_400_000;
const NIL = "00000000-0000-0000-0000-000000000000";

/**
 * Who keeps finished emails how long (ADR 0043): the installation's days (0: forever) for every account
 * without its own `accounts.retention_days`, and each of those its own (0: forever too). `longestDays` is the
 * longest of them all, or null when someone keeps them forever: whole weeks (partitions) go only past it.
 */
export interface RetentionPlan {
  defaultDays: number;
  accounts: Map<string, number>;
  longestDays: number | null;
}

export async function retentionPlan(db: Queryable, defaultDays: number): Promise<RetentionPlan> {
  const { rows } = await db.query<{ account: string; retention_days: number }>(
    "select account, retention_days from accounts where retention_days is not null",
  );
  const accounts = new Map(rows.map((r) => [r.account, r.retention_days]));
  const all = [defaultDays, ...accounts.values()];
  return { defaultDays, accounts, longestDays: all.includes(0) ? null : Math.max(...all) };
}

export interface EmailPurge {
  /** Finished emails deleted row by row (their remaining timeline and attachments cascading). */
  emails: number;
  /** Partitions dropped whole: weeks of timeline and of emails (ADR 0043, 0055). */
  partitions: string[];
}

/**
 * Purges finished emails past their account's retention: first whole weeks past the longest retention in
 * force are dropped, timeline then emails (no row of them is deleted; ADR 0055), then the emails created and
 * last changed before their account's cutoff are deleted in short batches, oldest first, within
 * `options.budgetMs`. Ids are UUIDv7, so "created before the cutoff" is a range of the primary key, read from
 * its start once per run.
 */
export async function purgeExpiredEmails(
  db: Queryable,
  defaultDays: number,
  options: PurgeOptions = {},
): Promise<EmailPurge> {
  const now = (options.now ?? new Date()).getTime();
  const deadline = Date.now() + (options.budgetMs ?? 60_000);
  const plan = await retentionPlan(db, defaultDays);
  const partitions =
    plan.longestDays === null
      ? []
      : await dropExpiredTimelinePartitions(db, new Date(now - plan.longestDays * DAY_MS));
  const own = [...plan.accounts.keys()];
  let emails = 0;
  if (defaultDays > 0) {
    emails += await deleteBefore(
      db,
      new Date(now - defaultDays * DAY_MS),
      { except: own },
      options,
      deadline,
    );
  }
  for (const [account, days] of plan.accounts) {
    if (days === 0 || Date.now() >= deadline) continue;
    emails += await deleteBefore(db, new Date(now - days * DAY_MS), { only: account }, options, deadline);
  }
  return { emails, partitions };
}

type Scope = { except: string[] } | { only: string };

/** Deletes the finished emails of `scope` created and changed before `cutoff`, batch after batch (keyset). */
async function deleteBefore(
  db: Queryable,
  cutoff: Date,
  scope: Scope,
  options: PurgeOptions,
  deadline: number,
): Promise<number> {
  const batchSize = options.batchSize ?? 5_000;
  const whose = "only" in scope ? "account = $5" : "account <> all($5)";
  let after = NIL;
  let total = 0;
  for (;;) {
    const { rows } = await db.query<{ n: number; last: string | null }>(
      `with doomed as (
         select id from emails
         where ${whose} and id > $4 and id < mailroom_uuidv7_floor($1) and status = any($2) and updated_at < $1
         order by id limit $3
         for update skip locked
       ), gone as (
         delete from emails e using doomed where e.id = doomed.id returning e.id
       )
       select count(*)::int as n, max(id::text) as last from gone`,
      [cutoff, FINISHED, batchSize, after, "only" in scope ? scope.only : scope.except],
    );
    const { n = 0, last = null } = rows[0] ?? {};
    total += n;
    if (n < batchSize || last === null || Date.now() >= deadline) return total;
    after = last;
  }
}
