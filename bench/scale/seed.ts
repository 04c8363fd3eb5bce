/**
 * Seeds an account's email history in SQL, fast (bench/scale/main.ts, issue 21 item 5): emails spread over the
 * last 30 days with UUIDv7 ids made from their creation time, in the proportions a transactional sender sees
 * (92 % delivered, 3 % bounced, 2 % failed, 1 % deferred, 1 % canceled, 1 % queued), with their timeline
 * (three events for a delivered email, two otherwise), one attachment on 5 % of them, and an idempotency key
 * on half of those of the last two days (the older half is what the retention purge removes).
 */
import type pg from "pg";
import { HTML, SUBJECT, TEXT } from "../delivery/protocol.ts";

const CHUNK = 100_000;
const DAYS = 30;

/**
 * Adds emails number `from` … `to - 1` (so a second call grows the same history), through a client of its own:
 * the pools' query timeout is for requests, not for bulk loads.
 */
export async function seedEmails(
  client: pg.Client,
  account: string,
  apiKeyId: string,
  from: number,
  to: number,
  say: (line: string) => void,
): Promise<void> {
  const started = performance.now();
  for (let start = from; start < to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK);
    await client.query(SEED_CHUNK, [account, apiKeyId, start, end - 1, to, SUBJECT, HTML, TEXT, from]);
    const seconds = (performance.now() - started) / 1000;
    say(`    seeded ${(end - from).toLocaleString("en-US")} emails in ${seconds.toFixed(0)} s`);
  }
}

// $9 … $5 - 1 are the emails this call adds: email i's creation time spreads them evenly over the last 30 days,
// the newest last, so each growth step keeps the history a realistic 30-day window (the oldest day, which a
// step's retention purge removed, is filled again by the next). Its id is a UUIDv7 of that time.
const SEED_CHUNK = `
with seeded as (
  select i,
         now() - make_interval(secs => (${DAYS} * 86400.0) * ($5 - i) / ($5 - $9::bigint)) as at,
         md5(i::text) as h,
         case when i % 100 < 92 then 'delivered' when i % 100 < 95 then 'bounced' when i % 100 < 97 then 'failed'
              when i % 100 = 97 then 'deferred' when i % 100 = 98 then 'canceled' else 'queued' end as status
  from generate_series($3::bigint, $4::bigint) as i
), emails_in as (
  insert into emails (id, account, api_key_id, status, failure_reason, from_header, from_address, to_addresses,
                      subject, html, text, category, message_id_header, attempts, last_smtp_response, tags,
                      created_at, updated_at)
  select (lpad(to_hex((extract(epoch from at) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3) || '8'
          || substr(h, 4, 15))::uuid,
         $1, $2, status, case status when 'failed' then 'suppressed' end,
         'Acme <sender' || (i % 5) || '@acme.bench>', 'sender' || (i % 5) || '@acme.bench',
         array['customer-' || (i % 200000) || '@example' || (i % 50) || '.test'],
         $6, $7, $8, (array['receipts', 'password-reset', 'invoice', 'welcome'])[1 + i % 4],
         '<seed-' || i || '@mailroom.bench>', 1, case when status = 'delivered' then '250 2.0.0 OK' end,
         jsonb_build_array(jsonb_build_object('name', 'plan', 'value', 'p' || (i % 10))), at, at
  from seeded
  returning id, status, created_at
), events_in as (
  insert into email_events (email_id, type, at, detail)
  select e.id, t.type, e.created_at + t.n * interval '200 milliseconds', '{}'
  from emails_in e
  cross join lateral (values (0, 'queued'), (1, 'sending'), (2, e.status)) as t(n, type)
  where t.n = 0 or (t.n = 1 and e.status <> 'canceled') or (t.n = 2 and e.status not in ('queued', 'canceled'))
  returning 1
), attachments_in as (
  insert into email_attachments (email_id, position, filename, content_type, content)
  select id, 0, 'receipt.pdf', 'application/pdf', decode(repeat('0', 2048), 'hex')
  from emails_in where get_byte(uuid_send(id), 15) % 20 = 0
  returning 1
)
insert into idempotency_keys (account, key, body_sha256, email_id, created_at)
select $1, 'seed-' || id, sha256(id::text::bytea), id, created_at
from emails_in where created_at > now() - interval '2 days' and get_byte(uuid_send(id), 14) % 2 = 0`;
