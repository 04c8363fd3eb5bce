import { describe, expect, it } from "vitest";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { normalizeEmailFilter } from "./filter.ts";
import { listEmails, listEmailsQuery, rareWordsQuery } from "./log.ts";

// ADR 0061: each kind of search term is served by an index of its own, chosen by the planner from the
// statistics of a log where the term is rare, not forced by turning scans off. The plans are read, not timed.
let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("plans", (setup) => {
  ({ db, keyId } = setup);
});

const EMAILS = 20_000;

/** A history as the bench's seed makes it: every subject alike, 5 senders, recipients of 50 domains, 10 tags. */
async function seed() {
  await db.pool.query(
    `insert into emails (id, account, api_key_id, status, from_header, from_address, to_addresses, subject,
                         text, category, message_id_header, tags, created_at)
     select (lpad(to_hex((extract(epoch from now() - make_interval(secs => $2 - i)) * 1000)::bigint), 12, '0')
             || '7' || substr(md5(i::text), 1, 3) || '8' || substr(md5(i::text), 4, 15))::uuid,
            'plans', $1, 'delivered', 'Acme <sender' || (i % 5) || '@acme.bench>', 'sender' || (i % 5) || '@acme.bench',
            array['customer-' || i || '@example' || (i % 50) || '.test'], 'Your receipt', 't', 'receipts',
            '<seed-' || i || '@mailroom.bench>',
            jsonb_build_array(jsonb_build_object('name', 'plan', 'value', 'p' || (i % 10))), now()
     from generate_series(1, $2) as i`,
    [keyId, EMAILS],
  );
  await db.pool.query("analyze emails; analyze email_addresses; analyze email_search_texts");
}

/** The index names `parent` stands for: itself and its copies on emails' partitions (named by Postgres). */
async function indexes(parent: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>(
    "select relid::regclass::text as name from pg_partition_tree($1::regclass)",
    [parent],
  );
  return rows.map((r) => r.name);
}

async function plan(q: string): Promise<string> {
  const query = listEmailsQuery("plans", normalizeEmailFilter({ q }));
  const { rows } = await db.pool.query(`explain (costs off) ${query.text}`, query.values);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}

const usesAny = (text: string, names: string[]) => names.some((name) => text.split(/\s+/).includes(name));
/** Whether the plan reads a table holding the seeded rows whole (an empty partition's scan costs nothing). */
async function scansRows(text: string): Promise<boolean> {
  const { rows } = await db.pool.query<{ name: string }>(
    "select distinct tableoid::regclass::text as name from emails union all values ('email_addresses'), ('email_search_texts')",
  );
  return rows.some((r) => text.includes(`Seq Scan on ${r.name}`));
}

describe("the index each kind of search term uses (issue 33)", () => {
  it("reads an address prefix, a Message-ID and a rare word from their indexes, not the account's walk", async () => {
    await seed();
    const found = async (q: string) =>
      (await listEmails(db.pool, "plans", normalizeEmailFilter({ q }))).data.map((e) => e.messageIdHeader);

    // A recipient's prefix: a range of email_addresses' B-tree, then each email by its primary key.
    const address = await plan("customer-123@example23");
    expect(address).toMatch(/Index Only Scan using email_addresses_prefix on email_addresses/);
    expect(await scansRows(address)).toBe(false);
    expect(await found("customer-123@example23")).toEqual(["<seed-123@mailroom.bench>"]);
    // A sender's prefix matching a fifth of the log: both read newest first (no sort of every match), and a
    // page is found soon.
    const common = await plan("sender2@acme");
    expect(common).toMatch(/Index Scan Backward/);
    expect(common).not.toMatch(/->\s+Sort\b/);
    expect(await found("sender2@acme")).toHaveLength(20);
    // Past a cursor deep in the log, the side table is read from the cursor down too (issue 33 item 2: its
    // merge with the log walked every address row above the cursor, over 30 s at 10M).
    const { rows: deepRows } = await db.pool.query<{ id: string }>(
      "select id from emails where account = 'plans' order by id offset $1 limit 1",
      [EMAILS / 10],
    );
    const cursor = deepRows[0]?.id as string;
    const deepQuery = listEmailsQuery("plans", {
      ...normalizeEmailFilter({ q: "sender2@acme" }),
      after: cursor,
    });
    const deep = (
      await db.pool.query(
        `explain (analyze, costs off, timing off, summary off) ${deepQuery.text}`,
        deepQuery.values,
      )
    ).rows
      .map((r) => r["QUERY PLAN"] as string)
      .join("\n");
    const sideScan = deep.split("\n").findIndex((line) => /Scan.* on email_addresses/.test(line));
    expect(sideScan, deep).toBeGreaterThanOrEqual(0);
    expect(
      deep
        .split("\n")
        .slice(sideScan, sideScan + 3)
        .join("\n"),
      deep,
    ).toMatch(/email_id <=/);
    const deepPage = await listEmails(db.pool, "plans", {
      ...normalizeEmailFilter({ q: "sender2@acme" }),
      after: cursor,
    });
    expect(deepPage.data).toHaveLength(20);
    expect(deepPage.data.every((e) => e.id < cursor && e.fromAddress === "sender2@acme.bench")).toBe(true);

    // A Message-ID: the hash index, in every weekly partition.
    const messageId = await plan("<seed-12345@mailroom.bench>");
    expect(usesAny(messageId, await indexes("emails_message_id"))).toBe(true);
    expect(await scansRows(messageId)).toBe(false);
    expect(messageId).not.toMatch(/emails_account_id/);
    expect(await found("<Seed-12345@mailroom.bench>")).toEqual(["<seed-12345@mailroom.bench>"]);

    // A word no email has: the trigram index answers that there is none.
    const word = await plan("zebra");
    expect(word).toMatch(/Bitmap Index Scan on email_search_texts_words/);
    expect(await scansRows(word)).toBe(false);
    expect(await found("zebra")).toEqual([]);
    // Two words, one probe of the text's trigrams with both (a rare word, a common one).
    const words = await plan("zebra receipt");
    expect(words.match(/Bitmap Index Scan on email_search_texts_words/g)).toHaveLength(1);
    expect(await scansRows(words)).toBe(false);
    // Whether words are rare is asked first, without order (a LIKE is estimated at 1/10,000 of the rows at
    // least, so the log's statement cannot tell): the trigram index answers for rare words, a scan that stops
    // early for common ones; rare words are then looked up by id.
    const probe = async (q: string) => {
      const query = rareWordsQuery("plans", normalizeEmailFilter({ q }));
      const { rows } = await db.pool.query(`explain (costs off) ${query.text}`, query.values);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    };
    expect(await probe("zebra receipt")).toMatch(/Bitmap Index Scan on email_search_texts_words/);
    expect(await probe("receipt")).not.toMatch(/email_search_texts_words/);
    expect(await found("zebra receipt")).toEqual([]);
    // A common word: the log newest first, each email's text by its primary key, and a page is found soon.
    const commonWord = await plan("receipt");
    expect(commonWord).toMatch(/Index Scan Backward/);
    expect(commonWord).not.toMatch(/->\s+Sort\b/);
    expect(await found("receipt")).toHaveLength(20);
  });
});
