/**
 * The log's search (issue 33 item 3, ADR 0061) over the seeded history (bench/scale/seed.ts): every seeded
 * subject is the same receipt, so a subject word matches every email (the newest-first walk's best case) and
 * a word of nothing matches none (the index's case); a recipient prefix matches 5 emails per million, a
 * sender prefix 20 %, an address prefix of nobody none, a Message-ID one, a tag 10 %. Each kind of term has its
 * own index (ADR 0061).
 */
import type { EmailFilter } from "@mailroom/core/emails";
import { normalizeEmailFilter } from "@mailroom/core/emails";

const search = (q: string): Pick<EmailFilter, "search"> => ({ search: normalizeEmailFilter({ q }).search });

export const SEARCH_FILTERS: [string, Pick<EmailFilter, "search">][] = [
  ["q: subject word (all)", search("receipt")],
  ["q: two words, no match", search("receipt zebra")],
  ["q: recipient prefix (5 per 1M)", search("customer-123@example23")],
  ["q: sender prefix (20 %)", search("sender2@acme")],
  ["q: address prefix, no match", search("nobody@")],
  ["q: Message-ID (1)", search("<seed-12345@mailroom.bench>")],
  ["q: tag (10 %)", search("plan:p3")],
];

export type Filter = Omit<EmailFilter, "limit" | "after">;
const TEN_DAYS_AGO = Date.now() - 10 * 86_400_000;
/** Every filter bench/scale times (main.ts) and explains (explain.ts): the log's own, then the search's. */
export const LOG_FILTERS: [string, Filter][] = [
  ["none", {}],
  ["status=bounced (3 %)", { status: "bounced" }],
  ["status=queued (1 %)", { status: "queued" }],
  ["to (5 per 1M)", { to: "customer-123@example23.test" }],
  ["from (20 %)", { from: "sender2@acme.bench" }],
  ["from, no match", { from: "nobody@acme.bench" }],
  ["category (25 %)", { category: "invoice" }],
  ["category, no match", { category: "none-such" }],
  ["tag (10 %)", { tag: { name: "plan", value: "p3" } }],
  ["since/until (1 h)", { since: new Date(TEN_DAYS_AGO), until: new Date(TEN_DAYS_AGO + 3600_000) }],
  ...SEARCH_FILTERS,
];
