import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acceptItem } from "../../../test/support/accept-item.ts";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { FUNCTIONS_DIR, MIGRATIONS_DIR } from "../db/migrate.ts";
import { acceptEmails } from "./accept.ts";
import { normalizeEmailFilter } from "./filter.ts";
import { listEmails } from "./log.ts";
import type { EmailDraft } from "./types.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("sr", (setup) => {
  ({ db, keyId } = setup);
});

const accept = async (draft: Partial<EmailDraft>, account = "sr") => {
  const [result] = await acceptEmails(db.pool, { hostname: "mail.test" }, [
    acceptItem(account, keyId, { draft }),
  ]);
  return String(result?.messageId);
};
const search = async (q: string, account = "sr") =>
  (await listEmails(db.pool, account, normalizeEmailFilter({ q }))).data.map((e) => e.subject);

describe("searching the log (issue 33)", () => {
  it("finds emails by subject words, sender or recipient prefix, Message-ID and tag, in the account only", async () => {
    await accept({
      subject: "Your invoice #2041 is ready",
      fromAddress: "billing@shop.test",
      to: ["ann@example.test"],
    });
    await accept({
      subject: "Welcome aboard, Ann!",
      fromAddress: "hello@shop.test",
      to: ["ann.lee@corp.test"],
    });
    const reset = await accept({
      subject: "Reset your password",
      fromAddress: "security@shop.test",
      to: ["bob@example.test"],
      tags: [{ name: "flow", value: "reset" }],
    });
    const custom = await accept({
      subject: "Shipped from the old system",
      fromAddress: "Legacy@Shop.test",
      to: ["zed@example.test", "Carol.Ng@Corp.test"],
      messageId: "<Order-77.Shipped@legacy.shop.test>",
    });
    await accept({ subject: "Your invoice for another account", fromAddress: "billing@shop.test" }, "other");

    expect(await search("invoice")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("INVOICE ready")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("invo")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("#2041")).toEqual(["Your invoice #2041 is ready"]);
    // A word's start, not any substring: "voice" is inside "invoice", not at a word's start.
    expect(await search("voice")).toEqual([]);
    expect(await search("ann")).toEqual(["Welcome aboard, Ann!", "Your invoice #2041 is ready"]);
    expect(await search("ann@")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("ann.lee@corp")).toEqual(["Welcome aboard, Ann!"]);
    expect(await search("billing@shop.test")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("security@")).toEqual(["Reset your password"]);
    expect(await search(`<${reset}@mail.test>`)).toEqual(["Reset your password"]);
    // Any Message-ID, whatever its case; an address in brackets is looked for as one.
    expect(custom).toMatch(/^[0-9a-f-]{36}$/);
    expect(await search("<order-77.shipped@LEGACY.shop.test>")).toEqual(["Shipped from the old system"]);
    expect(await search("<order-77@legacy.shop.test>")).toEqual([]);
    expect(await search("<zed@example.test>")).toEqual([]);
    // Every recipient's address and the sender's, lower-cased, from their start; a bracket at one end dropped.
    expect(await search("carol.ng@")).toEqual(["Shipped from the old system"]);
    expect(await search("<CAROL.NG@corp.test")).toEqual(["Shipped from the old system"]);
    expect(await search("legacy@shop")).toEqual(["Shipped from the old system"]);
    expect(await search("ng@corp")).toEqual([]);
    expect(await search("ann_lee@")).toEqual([]);
    // Terms of each kind together: all must match.
    expect(await search("invoice ann@")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("invoice bob@")).toEqual([]);
    expect(await search("flow:reset bob@example.test password")).toEqual(["Reset your password"]);
    expect(await search("flow:reset ann@")).toEqual([]);
    expect(await search("flow:reset")).toEqual(["Reset your password"]);
    // LIKE's wildcards are plain characters in a term.
    expect(await search("in_oice")).toEqual([]);
    expect(await search("billing%")).toEqual(["Your invoice #2041 is ready"]);
    expect(await search("invoice", "other")).toEqual(["Your invoice for another account"]);
  });

  it("refuses an empty search, or one of more than four words", () => {
    expect(() => normalizeEmailFilter({ q: "  " })).toThrow(/q: 1 to 200 characters/);
    expect(() => normalizeEmailFilter({ q: "a b c d e" })).toThrow(/q: at most 4 words/);
    expect(() => normalizeEmailFilter({ q: "% !" })).toThrow(/q: a word, an address or a Message-ID/);
  });

  it("indexes the addresses of emails inserted before its trigger existed, once, when the trigger is made", async () => {
    // As during an upgrade: the previous release accepts between migration 0172's fill and the functions.
    await db.pool.query("drop trigger emails_index_addresses on emails");
    await accept({ subject: "Accepted by the previous release", to: ["dora@upgrade.test"] });
    expect(await search("dora@")).toEqual([]);
    await db.pool.query(
      await readFile(path.join(FUNCTIONS_DIR, "mailroom_index_email_addresses.sql"), "utf8"),
    );
    expect(await search("dora@")).toEqual(["Accepted by the previous release"]);
    await accept({ subject: "Accepted after", to: ["dora@upgrade.test"] });
    expect(await search("dora@upgrade.test")).toEqual(["Accepted after", "Accepted by the previous release"]);
  });

  it("finds an email by its Cc and Bcc recipients' prefixes (a recipient is a recipient)", async () => {
    await accept({
      subject: "Copied",
      to: ["main@copies.test"],
      cc: ["Cecile@Copies.test", "main@copies.test"],
      bcc: ["blind@copies.test"],
    });
    expect(await search("cecile@")).toEqual(["Copied"]);
    expect(await search("blind@copies")).toEqual(["Copied"]);
    expect(await search("main@copies.test")).toEqual(["Copied"]);
    const { rows } = await db.pool.query(
      "select address from email_addresses where address like '%@copies.test'",
    );
    // main@ is in both to and cc: one row.
    expect(rows.map((r) => r.address).sort()).toEqual([
      "blind@copies.test",
      "cecile@copies.test",
      "main@copies.test",
    ]);
  });

  it("indexes the Cc and Bcc of emails the previous body indexed without them, once, when the body changes", async () => {
    // The body before migration 0177: the sender and `to` only. Migration 0177 filled the copies of the emails
    // then in the log; the previous release keeps accepting until the functions are applied.
    await db.pool.query(`create or replace function mailroom_index_email_addresses() returns trigger
      language plpgsql as $$
      begin
        insert into email_addresses (email_id, account, address)
        select n.id, n.account, lower(a) from added n cross join lateral unnest(array_prepend(n.from_address, n.to_addresses)) as a
        where a <> '' order by 1, 3 on conflict do nothing;
        return null;
      end $$`);
    await accept({ subject: "Copied by the previous release", to: ["x@old.test"], cc: ["erin@old.test"] });
    expect(await search("erin@")).toEqual([]);
    await db.pool.query(
      await readFile(path.join(FUNCTIONS_DIR, "mailroom_index_email_addresses.sql"), "utf8"),
    );
    expect(await search("erin@")).toEqual(["Copied by the previous release"]);
    await accept({ subject: "Copied after", to: ["y@old.test"], bcc: ["erin@old.test"] });
    expect(await search("erin@old.test")).toEqual(["Copied after", "Copied by the previous release"]);
    // The migration's own fill, for the emails in the log before it.
    await db.pool.query("delete from email_addresses where address = 'erin@old.test'");
    const fill = await readFile(path.join(MIGRATIONS_DIR, "0177_email_addresses_copies.sql"), "utf8");
    await db.pool.query(fill);
    expect(await search("erin@old.test")).toEqual(["Copied after", "Copied by the previous release"]);
  });
});
