import type { Registry } from "prom-client";
import { Gauge } from "prom-client";
import type { Queryable } from "../db/pool.ts";

/** The `account` label of the accounts past the limit, summed together. */
const OTHER = "other";

interface AccountFigures {
  account: string;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  paused: boolean;
}

interface DomainRate {
  domain: string;
  window: string;
  bounceRate: number;
  complaintRate: number;
}

/** Per account over the last 24 h (the reputation counters), paused accounts first, then by volume. */
async function readAccounts(db: Queryable): Promise<AccountFigures[]> {
  const { rows } = await db.query<AccountFigures>(
    `select a.account, coalesce(sum(c.sent), 0)::int as sent, coalesce(sum(c.delivered), 0)::int as delivered,
            coalesce(sum(c.bounced), 0)::int as bounced, coalesce(sum(c.complained), 0)::int as complained,
            a.sending_status = 'paused' as paused
     from accounts a
     left join reputation_counters c on c.account = a.account and c.hour > now() - interval '24 hours'
     group by a.account, a.sending_status
     having a.sending_status = 'paused' or coalesce(sum(c.sent), 0) > 0
     order by (a.sending_status = 'paused') desc, sent desc, a.account`,
  );
  return rows;
}

/** The guard's rates per sending domain that reached the minimum volume, the busiest first. */
async function readDomainRates(db: Queryable, limit: number): Promise<DomainRate[]> {
  const { rows } = await db.query<DomainRate>(
    `select domain, case window_hours when 24 then '24h' else '7d' end as window,
            bounced::float8 / sent as "bounceRate", complained::float8 / sent as "complaintRate"
     from (select domain, window_hours, sum(sent) as sent, sum(bounced) as bounced, sum(complained) as complained,
                  bool_or(level <> 'low_volume') as judged
           from reputation_rates where domain <> '' group by domain, window_hours) d
     where judged and sent > 0
     order by sent desc, domain, window_hours limit $1 * 2`,
    [limit],
  );
  return rows;
}

/**
 * Per-tenant figures (issue 31 item 5, issue 29 item 4) with bounded label cardinality: the `maxAccounts`
 * accounts that are paused or sent the most in the last 24 h get their own `account` label, the rest are
 * summed under `other`; the sending domains' 24 h and 7 d rates, for at most `maxDomains` domains past the
 * guard's minimum volume. Read from the reputation counters and the guard's rates, cached like the state
 * gauges (one query set per `minIntervalMs`). Exported by the worker.
 */
export function observeTenants(
  registry: Registry,
  db: Queryable,
  options: { maxAccounts?: number; maxDomains?: number; minIntervalMs?: number; now?: () => number } = {},
): void {
  const maxAccounts = options.maxAccounts ?? 50;
  const maxDomains = options.maxDomains ?? 200;
  const minIntervalMs = options.minIntervalMs ?? 15_000;
  const now = options.now ?? Date.now;
  let cached: { at: number; read: Promise<[AccountFigures[], DomainRate[]]> } | undefined;
  const read = () => {
    if (!cached || now() - cached.at >= minIntervalMs) {
      const figures = Promise.all([readAccounts(db), readDomainRates(db, maxDomains)]);
      figures.catch(() => {
        cached = undefined;
      });
      cached = { at: now(), read: figures };
    }
    return cached.read;
  };
  new Gauge({
    name: "mailroom_account_emails_24h",
    help:
      "Emails per account over the last 24 h, by outcome (sent, delivered, bounced, complained); accounts past " +
      'the label limit are summed under account="other".',
    labelNames: ["account", "outcome"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const [accounts] = await read();
      const other = { sent: 0, delivered: 0, bounced: 0, complained: 0 };
      accounts.forEach((a, i) => {
        const target = i < maxAccounts ? undefined : other;
        for (const outcome of ["sent", "delivered", "bounced", "complained"] as const) {
          if (target) target[outcome] += a[outcome];
          else this.set({ account: a.account, outcome }, a[outcome]);
        }
      });
      if (accounts.length > maxAccounts) {
        for (const [outcome, n] of Object.entries(other)) this.set({ account: OTHER, outcome }, n);
      }
    },
  });
  new Gauge({
    name: "mailroom_account_paused",
    help: '1 for each account whose sending is paused; paused accounts past the label limit count under "other".',
    labelNames: ["account"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const [accounts] = await read();
      const paused = accounts.filter((a) => a.paused);
      paused.slice(0, maxAccounts).forEach((a) => {
        this.set({ account: a.account }, 1);
      });
      if (paused.length > maxAccounts) this.set({ account: OTHER }, paused.length - maxAccounts);
    },
  });
  for (const [name, field, what] of [
    ["mailroom_domain_bounce_rate", "bounceRate", "Bounces"],
    ["mailroom_domain_complaint_rate", "complaintRate", "Complaints"],
  ] as const) {
    new Gauge({
      name,
      help: `${what} over emails sent per sending domain and window (24h, 7d), once the domain has the guard's minimum volume.`,
      labelNames: ["domain", "window"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const [, rates] = await read();
        for (const r of rates) this.set({ domain: r.domain, window: r.window }, r[field]);
      },
    });
  }
}
