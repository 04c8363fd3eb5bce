import { isUuid } from "../db/ids.ts";
import { MailroomError } from "../errors/index.ts";

/**
 * What `q` asks the log for (ADR 0061): every term must start a word of the subject, an address (sender or
 * recipient) or the Message-ID — `like '% <term>%'` over `mailroom_email_search_text`, served by the trigram
 * index `emails_search` — or `q` is one tag (`name:value`, served by `emails_tags`) or a Message-ID Mailroom
 * made (`<id@host>`, the primary key).
 */
export interface EmailSearch {
  /** One LIKE pattern per term, lower-cased and escaped. */
  patterns: string[];
  tag?: { name: string; value: string } | undefined;
  id?: string | undefined;
}

/** Terms a search may have: each is one more condition on the same index. */
export const MAX_SEARCH_TERMS = 4;
const TAG = /^([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)$/;

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The search `q` asks for; `validation_error` when it is empty, too long or has too many terms. */
export function parseSearch(q: string): EmailSearch {
  const text = q.trim().toLowerCase();
  if (text.length === 0 || text.length > 200)
    throw new MailroomError("validation_error", "q: 1 to 200 characters");
  // The subject's punctuation is not in the searchable text (words are split on it), so not in the terms.
  const terms = text
    .split(/\s+/)
    .map((t) => (t.includes("@") || t.startsWith("<") ? t : t.replace(/[^\p{L}\p{N}@.+_-]+/gu, "")))
    .filter((t) => t.length > 0);
  if (terms.length === 0)
    throw new MailroomError("validation_error", "q: a word, an address or a Message-ID");
  if (terms.length > MAX_SEARCH_TERMS) {
    throw new MailroomError("validation_error", `q: at most ${MAX_SEARCH_TERMS} words`);
  }
  const tag = terms.length === 1 ? TAG.exec(q.trim()) : null;
  const local = /^<([^@>]+)@[^>]+>$/.exec(text)?.[1];
  return {
    patterns: terms.map((t) => `% ${escapeLike(t)}%`),
    tag: tag?.[1] && tag[2] ? { name: tag[1], value: tag[2] } : undefined,
    id: local && isUuid(local) ? local : undefined,
  };
}
