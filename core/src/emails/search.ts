import { isUuid } from "../db/ids.ts";
import { MailroomError } from "../errors/index.ts";

/**
 * What `q` asks the log for (ADR 0061): every term must match, and its shape decides what it matches and so
 * which index serves it:
 *  - `<…>`: the Message-ID, exactly (hash index `emails_message_id`), or, for one Mailroom made (`<id@host>`,
 *    whatever the host), the email of that id (primary key);
 *  - a term with `@`: the start of the sender's or a recipient's (to, cc, bcc) address (B-tree
 *    `email_addresses_prefix`);
 *  - `name:value`: a tag (GIN `emails_tags`);
 *  - any other: the start of a word of the subject or of an address, `like '% <term>%'` over the email's
 *    `mailroom_email_search_text`, stored once at accept in `email_search_texts` (trigram index
 *    `email_search_texts_words`; not an index of `emails`, whose every status change would write it again).
 */
export interface EmailSearch {
  /** LIKE patterns over the searchable text, lower-cased and escaped. */
  words: string[];
  /** Address prefixes, lower-cased. */
  addresses: string[];
  /** Message-IDs with their angle brackets, lower-cased; `id` when the part before `@` is an email's id. */
  messageIds: { header: string; id?: string | undefined }[];
  tags: { name: string; value: string }[];
}

/** Terms a search may have: each is one more condition. */
export const MAX_SEARCH_TERMS = 4;
const TAG = /^([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)$/;
const MESSAGE_ID = /^<[^<>]+>$/;

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The search `q` asks for; `validation_error` when it is empty, too long or has too many terms. */
export function parseSearch(q: string): EmailSearch {
  const text = q.trim();
  if (text.length === 0 || text.length > 200)
    throw new MailroomError("validation_error", "q: 1 to 200 characters");
  const search: EmailSearch = { words: [], addresses: [], messageIds: [], tags: [] };
  let terms = 0;
  for (const term of text.split(/\s+/)) {
    const tag = TAG.exec(term);
    const lower = term.toLowerCase();
    // `<…>` whole is a Message-ID (so `<ann@example.test>` too, as in a header); a bracket only at one end
    // is dropped from an address.
    const address = lower.replace(/^<|>$/g, "");
    // The subject's punctuation is not in the searchable text (words are split on it), so not in the words.
    const word = lower.replace(/[^\p{L}\p{N}@.+_-]+/gu, "");
    if (MESSAGE_ID.test(lower)) {
      const local = /^<([^@]+)@/.exec(lower)?.[1];
      search.messageIds.push({ header: lower, id: local && isUuid(local) ? local : undefined });
    } else if (address.includes("@")) search.addresses.push(address);
    else if (tag?.[1] && tag[2]) search.tags.push({ name: tag[1], value: tag[2] });
    else if (word.length > 0) search.words.push(`% ${escapeLike(word)}%`);
    else continue;
    terms += 1;
  }
  if (terms === 0) throw new MailroomError("validation_error", "q: a word, an address or a Message-ID");
  if (terms > MAX_SEARCH_TERMS) {
    throw new MailroomError("validation_error", `q: at most ${MAX_SEARCH_TERMS} words`);
  }
  return search;
}

/**
 * The first string after every string that starts with `prefix`, in code point (UTF-8 byte, collation "C")
 * order: a prefix is the range [prefix, upper). Null when no string is above them all.
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix].map((c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = (points.pop() as number) + 1;
    if (last <= 0x10ffff) {
      // The surrogates are no characters: the next one after U+D7FF is U+E000.
      points.push(last >= 0xd800 && last <= 0xdfff ? 0xe000 : last);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}
