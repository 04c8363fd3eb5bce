import { v7 as uuidv7 } from "uuid";
import type { PoolClient } from "../db/pool.ts";
import { appendEvents } from "./events.ts";
import type { AcceptItem, AcceptResult, DeliverPayload } from "./types.ts";

export interface AcceptContext {
  account: string;
  apiKeyId: string;
  /** Right-hand side of generated Message-IDs. */
  hostname: string;
  trace?: Record<string, string> | undefined;
}

interface Claim {
  key: string;
  body_sha256: Buffer;
  email_id: string;
}

/**
 * Claims the idempotency keys of a set of items. Returns, per item index, the prior claim when its key was
 * already taken. A concurrent twin's INSERT waits on the unique index until the first transaction commits,
 * then sees its row: a twin therefore resolves to the first's email.
 */
async function claimIdempotencyKeys(
  client: PoolClient,
  account: string,
  items: readonly AcceptItem[],
  ids: readonly string[],
): Promise<Map<number, Claim>> {
  const keyed = items.flatMap((item, index) => (item.idempotencyKey ? [{ item, index }] : []));
  const prior = new Map<number, Claim>();
  if (keyed.length === 0) return prior;
  const { rows: inserted } = await client.query<{ key: string; email_id: string }>(
    `insert into idempotency_keys (account, key, body_sha256, email_id)
     select $1, k, h, e from unnest($2::text[], $3::bytea[], $4::uuid[]) as t(k, h, e)
     on conflict (account, key) do nothing
     returning key, email_id`,
    [
      account,
      keyed.map(({ item }) => item.idempotencyKey),
      keyed.map(({ item }) => item.bodySha256 ?? Buffer.alloc(32)),
      keyed.map(({ index }) => ids[index]),
    ],
  );
  const ownClaim = new Map(inserted.map((row) => [row.key, row.email_id]));
  const contested = keyed.filter(({ item, index }) => ownClaim.get(item.idempotencyKey ?? "") !== ids[index]);
  if (contested.length === 0) return prior;
  const { rows: existing } = await client.query<Claim>(
    `select key, body_sha256, email_id from idempotency_keys where account = $1 and key = any($2::text[])`,
    [account, contested.map(({ item }) => item.idempotencyKey)],
  );
  const byKey = new Map(existing.map((row) => [row.key, row]));
  for (const { item, index } of contested) {
    const claim = byKey.get(item.idempotencyKey ?? "");
    if (!claim) throw new Error(`idempotency key vanished during claim: index ${index}`);
    prior.set(index, claim);
  }
  return prior;
}

/**
 * Accepts emails inside the caller's transaction: claims idempotency keys, writes the email rows, their
 * first timeline event and their `deliver` jobs. Nothing is durable until the caller commits, and the caller
 * answers only after that commit.
 */
export async function acceptEmails(
  client: PoolClient,
  context: AcceptContext,
  items: readonly AcceptItem[],
): Promise<AcceptResult[]> {
  const ids = items.map(() => uuidv7());
  const prior = await claimIdempotencyKeys(client, context.account, items, ids);
  const results: AcceptResult[] = [];
  const fresh: { item: AcceptItem; id: string }[] = [];
  items.forEach((item, index) => {
    const claim = prior.get(index);
    const id = ids[index] as string;
    if (!claim) {
      fresh.push({ item, id });
      results.push({ status: "queued", messageId: id });
    } else if (item.bodySha256 && claim.body_sha256.equals(item.bodySha256)) {
      results.push({ status: "duplicate", messageId: claim.email_id });
    } else {
      results.push({ status: "idempotency_key_mismatch", messageId: claim.email_id });
    }
  });
  if (fresh.length === 0) return results;

  const freshIds = fresh.map((f) => f.id);
  await client.query(
    `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, html, text,
                         category, message_id_header)
     select id, $1, $2, 'queued', f, string_to_array(t, E'\\x1f'), s, h, x, c, '<' || id || '@' || $3 || '>'
     from unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
       as u(id, f, t, s, h, x, c)`,
    [
      context.account,
      context.apiKeyId,
      context.hostname,
      freshIds,
      fresh.map((f) => f.item.draft.from),
      // Postgres cannot unnest a ragged 2-D array; recipients travel joined by the unit separator.
      fresh.map((f) => f.item.draft.to.join("\x1f")),
      fresh.map((f) => f.item.draft.subject),
      fresh.map((f) => f.item.draft.html ?? null),
      fresh.map((f) => f.item.draft.text ?? null),
      fresh.map((f) => f.item.draft.category),
    ],
  );
  await appendEvents(client, freshIds, "queued");
  const payloads: DeliverPayload[] = freshIds.map((emailId) =>
    context.trace ? { emailId, trace: context.trace } : { emailId },
  );
  await client.query(
    `select graphile_worker.add_jobs(array(
       select row('deliver', p, null, null, null, 'deliver:' || e, null, null)::graphile_worker.job_spec
       from unnest($1::json[], $2::uuid[]) as u(p, e)
     ))`,
    [payloads.map((p) => JSON.stringify(p)), freshIds],
  );
  return results;
}
