import type { Pool, Queryable } from "../db/pool.ts";
import type { ReputationLevel } from "./thresholds.ts";

/** One (account, domain, window)'s counts; domain `""` is the whole account. */
export interface WindowCounts {
  account: string;
  domain: string;
  windowHours: number;
  sent: number;
  bounced: number;
  complained: number;
}

export interface ReputationRate extends WindowCounts {
  level: ReputationLevel;
  computedAt: Date;
}

/**
 * Sums the hourly counters into each window's counts, per sending domain and for the whole account (domain
 * `""`), for every account with mail in the last week, from the hours after its last resume (mail from before
 * a resume cannot pause the account again). Reads at most 168 counter rows per pair, never the log.
 */
export async function sumWindows(
  db: Queryable,
  now: Date,
  windowsHours: readonly number[],
): Promise<WindowCounts[]> {
  const { rows } = await db.query<WindowCounts>(
    `select c.account, coalesce(c.domain, '') as domain, w.hours as "windowHours",
            sum(c.sent)::int as sent, sum(c.bounced)::int as bounced, sum(c.complained)::int as complained
     from unnest($2::int[]) as w(hours)
     join reputation_counters c on c.hour > date_trunc('hour', $1::timestamptz) - make_interval(hours => w.hours)
     join accounts a on a.account = c.account
     where a.resumed_at is null or c.hour >= date_trunc('hour', a.resumed_at) + interval '1 hour'
     group by grouping sets ((c.account, c.domain, w.hours), (c.account, w.hours))
     order by 1, 2, 3`,
    [now, windowsHours],
  );
  return rows;
}

/**
 * Replaces the stored rates with the guard's latest view: the API, the metrics and the domain resource read
 * them. Rows of pairs with no mail left in the week are dropped. The one writer of `reputation_rates`.
 */
export async function storeRates(db: Queryable, rates: readonly ReputationRate[], now: Date): Promise<void> {
  await db.query(
    `insert into reputation_rates as r (account, domain, window_hours, sent, bounced, complained, level, computed_at)
     select u.*, $8::timestamptz
     from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[]) as u
     on conflict (account, domain, window_hours) do update
       set sent = excluded.sent, bounced = excluded.bounced, complained = excluded.complained,
           level = excluded.level, computed_at = excluded.computed_at`,
    [
      rates.map((r) => r.account),
      rates.map((r) => r.domain),
      rates.map((r) => r.windowHours),
      rates.map((r) => r.sent),
      rates.map((r) => r.bounced),
      rates.map((r) => r.complained),
      rates.map((r) => r.level),
      now,
    ],
  );
  await db.query("delete from reputation_rates where computed_at < $1", [now]);
}

/** The stored rates of one account (all its domains and `""`), or of every account. */
export async function readRates(db: Queryable | Pool, account?: string): Promise<ReputationRate[]> {
  const { rows } = await db.query<ReputationRate>(
    `select account, domain, window_hours as "windowHours", sent, bounced, complained, level,
            computed_at as "computedAt"
     from reputation_rates where $1::text is null or account = $1 order by account, domain, window_hours`,
    [account ?? null],
  );
  return rows;
}

/** Drops hourly counters older than the longest window. */
export async function purgeReputationCounters(db: Queryable, now: Date): Promise<number> {
  const result = await db.query(
    `delete from reputation_counters where hour < date_trunc('hour', $1::timestamptz) - interval '8 days'`,
    [now],
  );
  return result.rowCount ?? 0;
}

/**
 * Adds the timeline's settled new events to the hourly counters (`mailroom_roll_up_reputation`, the one place
 * that decides which mail counts). Returns how many event ids were read.
 */
export async function rollUpReputation(
  db: Queryable,
  now: Date,
  options: { settleSeconds: number; maxEvents: number },
): Promise<number> {
  const { rows } = await db.query<{ read: number }>(
    "select mailroom_roll_up_reputation($1, make_interval(secs => $2), $3) as read",
    [now, options.settleSeconds, options.maxEvents],
  );
  return rows[0]?.read ?? 0;
}
