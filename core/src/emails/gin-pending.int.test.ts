import { describe, expect, it } from "vitest";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { normalizeEmailFilter } from "./filter.ts";
import { listEmails } from "./log.ts";
import { prepareTimelinePartitions } from "./timeline-partitions.ts";

// Issue 33 item 2, ADR 0061: every query through a GIN index of emails reads that index's pending list
// whole; the week being written always has one. Each partition's GIN indexes bound it to 256 kB.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("gin-pending", (setup) => {
  ({ db, keyId } = setup);
});

/** Every GIN index of emails' partitions, with its pending list bound (null when it has none of its own). */
async function ginIndexes(): Promise<{ index: string; bound: string | null }[]> {
  const { rows } = await db.pool.query<{ index: string; bound: string | null }>(
    `select x.indexrelid::regclass::text as index,
            (select substr(o, 24) from unnest(i.reloptions) as o where o like 'gin_pending_list_limit=%') as bound
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_am am on am.oid = i.relam
     join pg_inherits h on h.inhrelid = x.indrelid and h.inhparent = 'emails'::regclass
     where am.amname = 'gin' order by 1`,
  );
  return rows;
}

describe("the pending lists of emails' GIN indexes (issue 33)", () => {
  it("are bounded by every Mailroom session and on every week made later, and a search reads at most that", async () => {
    // The weeks already there keep their indexes as they are (no lock taken on them by a migrate): every
    // session of Mailroom's pools bounds their pending lists.
    const { rows: setting } = await db.pool.query<{ bound: string }>(
      "select current_setting('gin_pending_list_limit') as bound",
    );
    expect(setting[0]?.bound).toBe("256kB");
    const before = await ginIndexes();
    // The tags and the recipients, on each week and the default partition (the search's trigrams are in
    // email_search_texts, below).
    expect(before.length).toBeGreaterThanOrEqual(4);
    // Weeks made from now on (a year ahead: none of them exists yet) get the bound as an index option too.
    const made = await prepareTimelinePartitions(db.pool, new Date(Date.now() + 365 * 86_400_000));
    expect(made.some((name) => name.startsWith("emails_"))).toBe(true);
    const after = await ginIndexes();
    const added = after.filter((i) => !before.some((b) => b.index === i.index));
    expect(added.length).toBeGreaterThan(0);
    expect(added.filter((i) => i.bound !== "256")).toEqual([]);

    // The search's trigram index (email_search_texts_words, not partitioned: bounded when made), as accepts
    // fill it after a vacuum: its pending list stays within the bound (4 MB, about 500 pages, without it),
    // so a search reads at most that much of it.
    const { rows: words } = await db.pool.query<{ options: string[] }>(
      "select reloptions as options from pg_class where relname = 'email_search_texts_words'",
    );
    expect(words[0]?.options).toEqual(["gin_pending_list_limit=256"]);
    await db.pool.query("vacuum emails, email_search_texts");
    await db.pool.query(
      `insert into emails (id, account, api_key_id, status, from_header, from_address, to_addresses, subject,
                           text, category, message_id_header)
       select (lpad(to_hex((extract(epoch from now()) * 1000)::bigint), 12, '0') || '7' || substr(md5(i::text), 1, 3)
               || '8' || substr(md5(i::text), 4, 15))::uuid,
              'gin-pending', $1, 'queued', 'Shop <shop@pending.test>', 'shop@pending.test',
              array['customer-' || i || '@example' || (i % 50) || '.test'], 'Your receipt number ' || i, 't',
              'receipts', '<pending-' || i || '@pending.test>'
       from generate_series(1, 3000) as i`,
      [keyId],
    );
    await db.pool.query("create extension if not exists pgstattuple");
    const { rows } = await db.pool.query<{ pages: number }>(
      "select s.pending_pages as pages from pgstatginindex('email_search_texts_words') s",
    );
    // 256 kB is 32 pages of 8 kB; an insert merges the list once it has passed the bound.
    expect(rows[0]?.pages).toBeGreaterThan(0);
    expect(rows[0]?.pages).toBeLessThanOrEqual(40);
    const found = await listEmails(db.pool, "gin-pending", normalizeEmailFilter({ q: "receipt 2999" }));
    expect(found.data.map((e) => e.subject)).toEqual(["Your receipt number 2999"]);
  });
});
