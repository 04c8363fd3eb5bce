import { newId } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import type { TraceCarrier } from "../jobs/index.ts";
import { envelopeRecipients } from "./address.ts";
import type { AcceptItem, AcceptResult, EmailSource } from "./types.ts";

/** An item to accept, with the key that sent it: one transaction may carry several requests' items. */
export interface AcceptRequest extends AcceptItem {
  account: string;
  apiKeyId: string;
  /** W3C trace context of the request, carried in the job payload and the email's first webhook event. */
  trace?: TraceCarrier | undefined;
  /** The door it came through, shown in the log (default `api`). */
  source?: EmailSource | undefined;
  /** Mailbox simulator mail (`emails.simulated`, core/src/simulator): left out of reputation figures. */
  simulated?: boolean | undefined;
  /** Captured, never delivered: decided by `capturesMail` (core/src/sandbox) from the key and account. */
  sandbox?: boolean | undefined;
  /** A TLS report's email (core/src/tls-reports): receivers' TLS policies are not applied (RFC 8460 §5.3). */
  tlsReport?: boolean | undefined;
}

export interface AcceptOptions {
  /** Right-hand side of generated Message-IDs. */
  hostname: string;
}

/** REQUIRETLS wins over `TLS-Required: No` (RFC 8689 §4.1: the header is then ignored). */
function tlsPolicyExemptionOf(draft: AcceptItem["draft"], tlsReport: boolean | undefined) {
  if (tlsReport) return "tls-report";
  return draft.tlsRequiredNo && !draft.requireTls ? "tls-required-no" : null;
}

interface Claim {
  account: string;
  key: string;
  body_sha256: Buffer;
  email_id: string;
}

/** The statement's input rows: one per item, `n` its index. Carried as one jsonb parameter. */
function inputRows(items: readonly AcceptRequest[], ids: readonly string[]): string {
  return JSON.stringify(
    items.map(
      (
        {
          draft,
          account,
          apiKeyId,
          trace,
          source,
          simulated,
          sandbox,
          tlsReport,
          idempotencyKey,
          bodySha256,
        },
        n,
      ) => ({
        id: ids[n],
        account,
        api_key_id: apiKeyId,
        from_header: draft.from,
        from_address: draft.fromAddress,
        to_addresses: draft.to,
        cc_addresses: draft.cc,
        bcc_addresses: draft.bcc,
        recipients: envelopeRecipients([...draft.to, ...draft.cc, ...draft.bcc]),
        reply_to: draft.replyTo,
        subject: draft.subject,
        html: draft.html ?? null,
        text: draft.text ?? null,
        category: draft.category,
        custom_headers: draft.headers,
        tags: draft.tags,
        scheduled_at: draft.scheduledAt?.toISOString() ?? null,
        require_tls: draft.requireTls ?? false,
        tls_policy_exempt: tlsPolicyExemptionOf(draft, tlsReport),
        message_id: draft.messageId ?? null,
        source: source ?? "api",
        simulated: simulated ?? false,
        sandbox: sandbox ?? false,
        trace: trace ?? null,
        event_id: newId(),
        idem_key: idempotencyKey ?? null,
        idem_sha256: idempotencyKey ? (bodySha256 ?? Buffer.alloc(32)).toString("hex") : null,
        n,
      }),
    ),
  );
}

/**
 * The whole accept in ONE statement, so that it is one round trip and — run outside an explicit transaction —
 * one implicit transaction: claim the idempotency keys (sorted, so that two statements claiming overlapping
 * keys cannot deadlock; a concurrent twin's claim waits on the unique index until the first commits and is
 * then skipped), write the email rows of the items that need no claim or won theirs, their first timeline
 * event and — for accounts with a webhook endpoint subscribed — their `email.queued`/`email.scheduled` events
 * (mailroom_append_email_events), their `deliver` jobs (mailroom_enqueue_deliver) and their attachments; the
 * functions are in core/sql/functions/email_lifecycle.sql. Returns the ids of the emails written. Only a
 * scheduled email's job has a key (`deliver:<id>`, which cancel and reschedule replace): keys cost
 * graphile-worker an extra pass over the jobs, and a queued email's stray job finds it canceled or
 * rescheduled when it runs and leaves it alone.
 */
function acceptSql(withAttachments: boolean, withRaw: boolean): string {
  // Attachments take parameters $3 to $8, raw messages the next two.
  const raw = withAttachments ? 9 : 3;
  return `with r as (
       select * from jsonb_to_recordset($2::jsonb) as r(id uuid, account text, api_key_id text,
         from_header text, from_address text, to_addresses text[], cc_addresses text[], bcc_addresses text[],
         recipients text[], reply_to text[], subject text, html text, text text, category text,
         custom_headers jsonb, tags jsonb, scheduled_at timestamptz, require_tls boolean, tls_policy_exempt text,
         message_id text, source text, simulated boolean, sandbox boolean, trace jsonb,
         event_id uuid, idem_key text, idem_sha256 text, n int)
     ), claimed as (
       insert into idempotency_keys (account, key, body_sha256, email_id)
       select account, idem_key, decode(idem_sha256, 'hex'), id from r where idem_key is not null
       order by account, idem_key
       on conflict (account, key) do nothing
       returning email_id
     ), e as (
       insert into emails (id, account, api_key_id, status, from_header, from_address, to_addresses,
                           cc_addresses, bcc_addresses, reply_to, subject, html, text, category, custom_headers,
                           tags, scheduled_at, require_tls, tls_policy_exempt, message_id_header, source,
                           simulated, sandbox, pending_recipients)
       select id, account, api_key_id, case when scheduled_at is null then 'queued' else 'scheduled' end,
              from_header, from_address, to_addresses, cc_addresses, bcc_addresses, reply_to, subject, html,
              text, category, custom_headers, tags, scheduled_at, require_tls, tls_policy_exempt,
              coalesce(message_id, '<' || id || '@' || $1 || '>'), source, simulated, sandbox, recipients
       from r where idem_key is null or id in (select email_id from claimed)
       order by n
       returning id, status
     ), timeline as (
       -- The first timeline event and, for accounts with a subscribed webhook endpoint, the matching
       -- email.queued/email.scheduled event, through the one writer of the timeline.
       select mailroom_append_email_events(array_agg(r.id order by r.n), array_agg(r.event_id order by r.n),
                array_agg(r.account order by r.n), array_agg(e.status order by r.n), null,
                array_agg(r.trace order by r.n))
       from r join e on e.id = r.id
       having count(*) > 0
     ), jobs as (
       select mailroom_enqueue_deliver(array_agg(r.id order by r.n), array_agg(r.scheduled_at order by r.n),
                                       array_agg(r.trace order by r.n),
                                       array_agg(r.scheduled_at is not null order by r.n))
       from r join e on e.id = r.id
     )${
       withAttachments
         ? `, attached as (
       insert into email_attachments (email_id, position, filename, content_type, content_id, content)
       select * from unnest($3::uuid[], $4::int[], $5::text[], $6::text[], $7::text[], $8::bytea[])
         as a(email_id, position, filename, content_type, content_id, content)
       where a.email_id in (select id from e)
     )`
         : ""
     }${
       withRaw
         ? `, raw as (
       insert into email_raw_messages (email_id, content)
       select * from unnest($${raw}::uuid[], $${raw + 1}::bytea[]) as m(email_id, content)
       where m.email_id in (select id from e)
     )`
         : ""
     }
     select coalesce((select array_agg(id) from e), '{}') as written,
            (select count(*) from jobs) as jobs, (select count(*) from timeline) as timeline`;
}

// The four shapes of the statement, each prepared once per connection under its own name.
const ACCEPT_SQL = new Map<string, { name: string; text: string }>(
  [false, true].flatMap((attachments) =>
    [false, true].map((raw) => [
      `${attachments}/${raw}`,
      {
        name: `mailroom_accept${attachments ? "_attachments" : ""}${raw ? "_raw" : ""}`,
        text: acceptSql(attachments, raw),
      },
    ]),
  ),
);

/** The prior claims of idempotency keys this statement did not win (a committed twin or an earlier item). */
async function priorClaims(db: Queryable, contested: readonly AcceptRequest[]): Promise<Map<string, Claim>> {
  const { rows } = await db.query<Claim>(
    `select i.account, i.key, i.body_sha256, i.email_id
     from idempotency_keys i join unnest($1::text[], $2::text[]) as t(a, k) on i.account = t.a and i.key = t.k`,
    [contested.map((item) => item.account), contested.map((item) => item.idempotencyKey)],
  );
  return new Map(rows.map((row) => [`${row.account}\n${row.key}`, row]));
}

/**
 * Accepts emails in one statement (see `acceptSql`): run it on the pool and it is its own transaction, or on a
 * client inside the caller's transaction. A 2xx may be sent once that transaction has committed. Items whose
 * idempotency key was already claimed answer `duplicate` (same body) or `idempotency_key_mismatch`, read by a
 * second statement only when that happens.
 */
export async function acceptEmails(
  db: Queryable,
  options: AcceptOptions,
  items: readonly AcceptRequest[],
): Promise<AcceptResult[]> {
  if (items.length === 0) return [];
  const ids = items.map(() => newId());
  const attachments = items.flatMap((item, n) =>
    item.draft.attachments.map((a, position) => ({ id: ids[n], position, a })),
  );
  const values: unknown[] = [options.hostname, inputRows(items, ids)];
  if (attachments.length > 0) {
    values.push(
      attachments.map((x) => x.id),
      attachments.map((x) => x.position),
      attachments.map((x) => x.a.filename),
      attachments.map((x) => x.a.contentType),
      attachments.map((x) => x.a.contentId ?? null),
      attachments.map((x) => x.a.content),
    );
  }
  const raws = items.flatMap((item, n) => (item.draft.raw ? [{ id: ids[n], raw: item.draft.raw }] : []));
  if (raws.length > 0) {
    values.push(
      raws.map((x) => x.id),
      raws.map((x) => x.raw),
    );
  }
  // Named: each connection plans the statement once (planning it cost more than running it for one email).
  const statement = ACCEPT_SQL.get(`${attachments.length > 0}/${raws.length > 0}`) as {
    name: string;
    text: string;
  };
  const { rows } = await db.query<{ written: string[] }>({ ...statement, values });
  const written = new Set(rows[0]?.written ?? []);
  const contested = items.filter((_, n) => !written.has(ids[n] as string));
  const prior = contested.length > 0 ? await priorClaims(db, contested) : new Map<string, Claim>();
  return items.map((item, n) => {
    const id = ids[n] as string;
    if (written.has(id)) return { status: item.draft.scheduledAt ? "scheduled" : "queued", messageId: id };
    const claim = prior.get(`${item.account}\n${item.idempotencyKey}`);
    if (!claim) throw new Error(`idempotency key vanished during claim: index ${n}`);
    if (item.bodySha256 && claim.body_sha256.equals(item.bodySha256))
      return { status: "duplicate", messageId: claim.email_id };
    return { status: "idempotency_key_mismatch", messageId: claim.email_id };
  });
}
