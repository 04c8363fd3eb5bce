import { v7 as uuidv7 } from "uuid";
import type { PoolClient } from "../db/pool.ts";
import { emailEventDataSql, subscribedSql } from "../webhooks/outbox.ts";
import type { AcceptItem, AcceptResult } from "./types.ts";

/** An item to accept, with the key that sent it: one transaction may carry several requests' items. */
export interface AcceptRequest extends AcceptItem {
  account: string;
  apiKeyId: string;
  /** W3C trace context of the request, carried in the job payload. */
  trace?: Record<string, string> | undefined;
}

export interface AcceptOptions {
  /** Right-hand side of generated Message-IDs. */
  hostname: string;
}

interface Claim {
  account: string;
  key: string;
  body_sha256: Buffer;
  email_id: string;
}

/**
 * Claims the idempotency keys of the items that carry one. Returns, per item index, the prior claim when the
 * key was already taken. A concurrent twin's INSERT waits on the unique index until the first transaction
 * commits, then sees its row, so a twin resolves to the first's email. Keys are inserted in sorted order so
 * that two transactions claiming overlapping keys cannot deadlock.
 */
async function claimIdempotencyKeys(
  client: PoolClient,
  items: readonly AcceptRequest[],
  ids: readonly string[],
): Promise<Map<number, Claim>> {
  const keyed = items.flatMap((item, index) => (item.idempotencyKey ? [{ item, index }] : []));
  const prior = new Map<number, Claim>();
  if (keyed.length === 0) return prior;
  const { rows: inserted } = await client.query<{ email_id: string }>(
    `insert into idempotency_keys (account, key, body_sha256, email_id)
     select a, k, h, e from unnest($1::text[], $2::text[], $3::bytea[], $4::uuid[]) as t(a, k, h, e)
     order by a, k
     on conflict (account, key) do nothing
     returning email_id`,
    [
      keyed.map(({ item }) => item.account),
      keyed.map(({ item }) => item.idempotencyKey),
      keyed.map(({ item }) => item.bodySha256 ?? Buffer.alloc(32)),
      keyed.map(({ index }) => ids[index]),
    ],
  );
  const won = new Set(inserted.map((row) => row.email_id));
  const contested = keyed.filter(({ index }) => !won.has(ids[index] as string));
  if (contested.length === 0) return prior;
  const { rows: existing } = await client.query<Claim>(
    `select i.account, i.key, i.body_sha256, i.email_id
     from idempotency_keys i join unnest($1::text[], $2::text[]) as t(a, k) on i.account = t.a and i.key = t.k`,
    [contested.map(({ item }) => item.account), contested.map(({ item }) => item.idempotencyKey)],
  );
  const byKey = new Map(existing.map((row) => [`${row.account}\n${row.key}`, row]));
  for (const { item, index } of contested) {
    const claim = byKey.get(`${item.account}\n${item.idempotencyKey}`);
    if (!claim) throw new Error(`idempotency key vanished during claim: index ${index}`);
    prior.set(index, claim);
  }
  return prior;
}

/**
 * Writes the email rows, their first timeline event, their `deliver` jobs and — for accounts with a webhook
 * endpoint subscribed — their `email.queued`/`email.scheduled` events with one fan-out job, all in ONE
 * statement: a round trip saved per step is what lets concurrent sends share a transaction cheaply.
 */
async function insertEmails(
  client: PoolClient,
  options: AcceptOptions,
  fresh: readonly { item: AcceptRequest; id: string }[],
): Promise<void> {
  await client.query(
    `with r as (
       select * from jsonb_to_recordset($2::jsonb) as r(id uuid, account text, api_key_id text,
         from_header text, from_address text, to_addresses text[], cc_addresses text[], bcc_addresses text[],
         reply_to text[], subject text, html text, text text, category text, custom_headers jsonb, tags jsonb,
         scheduled_at timestamptz, trace jsonb, event_id uuid, n int)
     ), e as (
       insert into emails (id, account, api_key_id, status, from_header, from_address, to_addresses,
                           cc_addresses, bcc_addresses, reply_to, subject, html, text, category, custom_headers,
                           tags, scheduled_at, message_id_header)
       select id, account, api_key_id, case when scheduled_at is null then 'queued' else 'scheduled' end,
              from_header, from_address, to_addresses, cc_addresses, bcc_addresses, reply_to, subject, html,
              text, category, custom_headers, tags, scheduled_at, '<' || id || '@' || $1 || '>'
       from r order by n
       returning id, status
     ), timeline as (
       insert into email_events (email_id, type) select id, status from e
     ), hooks as (
       insert into webhook_events (id, account, type, stream, data)
       select r.event_id, r.account, 'email.' || e.status, 'email:' || r.id, ${emailEventDataSql("r")}
       from r join e on e.id = r.id
       where ${subscribedSql("r.account", "'email.' || e.status")}
       order by r.n
       returning id
     ), fanout as (
       select graphile_worker.add_job('webhook_fanout', json_build_object('eventIds', json_agg(id)),
                                      max_attempts => 25)
       from hooks having count(*) > 0
     ), jobs as (
       select graphile_worker.add_jobs(array(
         select row('deliver',
                    case when r.trace is null then json_build_object('emailId', r.id)
                         else json_build_object('emailId', r.id, 'trace', r.trace) end,
                    null, r.scheduled_at, null, 'deliver:' || r.id, null, null)::graphile_worker.job_spec
         from r join e on e.id = r.id order by r.n
       ))
     )
     select (select count(*) from jobs) as jobs, (select count(*) from fanout) as fanout`,
    [
      options.hostname,
      JSON.stringify(
        fresh.map(({ item: { draft, account, apiKeyId, trace }, id }, n) => ({
          id,
          account,
          api_key_id: apiKeyId,
          from_header: draft.from,
          from_address: draft.fromAddress,
          to_addresses: draft.to,
          cc_addresses: draft.cc,
          bcc_addresses: draft.bcc,
          reply_to: draft.replyTo,
          subject: draft.subject,
          html: draft.html ?? null,
          text: draft.text ?? null,
          category: draft.category,
          custom_headers: draft.headers,
          tags: draft.tags,
          scheduled_at: draft.scheduledAt?.toISOString() ?? null,
          trace: trace ?? null,
          event_id: uuidv7(),
          n,
        })),
      ),
    ],
  );
  const attachments = fresh.flatMap(({ item, id }) =>
    item.draft.attachments.map((a, position) => ({ id, position, a })),
  );
  if (attachments.length === 0) return;
  await client.query(
    `insert into email_attachments (email_id, position, filename, content_type, content_id, content)
     select * from unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bytea[])`,
    [
      attachments.map((x) => x.id),
      attachments.map((x) => x.position),
      attachments.map((x) => x.a.filename),
      attachments.map((x) => x.a.contentType),
      attachments.map((x) => x.a.contentId ?? null),
      attachments.map((x) => x.a.content),
    ],
  );
}

/**
 * Accepts emails inside the caller's transaction: claims idempotency keys, writes the email rows (and
 * attachments), their first timeline event and their `deliver` jobs (run at `scheduledAt` when given).
 * Nothing is durable until the caller commits, and the caller answers only after that commit.
 */
export async function acceptEmails(
  client: PoolClient,
  options: AcceptOptions,
  items: readonly AcceptRequest[],
): Promise<AcceptResult[]> {
  const ids = items.map(() => uuidv7());
  const prior = await claimIdempotencyKeys(client, items, ids);
  const results: AcceptResult[] = [];
  const fresh: { item: AcceptRequest; id: string }[] = [];
  items.forEach((item, index) => {
    const claim = prior.get(index);
    const id = ids[index] as string;
    if (!claim) {
      fresh.push({ item, id });
      results.push({ status: item.draft.scheduledAt ? "scheduled" : "queued", messageId: id });
    } else if (item.bodySha256 && claim.body_sha256.equals(item.bodySha256)) {
      results.push({ status: "duplicate", messageId: claim.email_id });
    } else {
      results.push({ status: "idempotency_key_mismatch", messageId: claim.email_id });
    }
  });
  if (fresh.length === 0) return results;

  await insertEmails(client, options, fresh);
  return results;
}
