import { isUuid } from "../db/ids.ts";
import { MailroomError } from "../errors/index.ts";
import { parseAddress } from "./address.ts";
import type { EmailFilter } from "./log.ts";
import { parseSearch } from "./search.ts";
import { EMAIL_STATUSES, type EmailStatus } from "./types.ts";

/** The email log's filters as a query string carries them (the API's `GET /v1/emails`). */
export interface EmailListQuery {
  limit?: string | number | undefined;
  after?: string | undefined;
  status?: string | undefined;
  to?: string | undefined;
  from?: string | undefined;
  category?: string | undefined;
  /** `name:value`. */
  tag?: string | undefined;
  /** RFC 3339. */
  since?: string | undefined;
  until?: string | undefined;
  /** Subject words, sender or recipient prefix, Message-ID or tag (search.ts). */
  q?: string | undefined;
}

const DEFAULT_LIMIT = 20;

const invalid = (message: string) => new MailroomError("validation_error", message);

/** A query string's RFC 3339 time, or `validation_error` naming the field (the log's and the stats' filters). */
export function queryTime(field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalid(`${field}: an RFC 3339 time`);
  return at;
}

function address(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseAddress(value);
  if (!parsed) throw invalid(`${field}: an email address`);
  return parsed;
}

/**
 * The filter `listEmails` takes, from the filters as a caller gave them: addresses normalised as they are
 * stored (the domain lower-cased, so `ann@Example.TEST` finds `ann@example.test`), times parsed, the cursor checked. Throws
 * `validation_error` naming the field.
 */
export function normalizeEmailFilter(query: EmailListQuery): EmailFilter {
  if (query.after !== undefined && !isUuid(query.after)) {
    throw invalid("after: the id of an email from the previous page");
  }
  if (query.status !== undefined && !(EMAIL_STATUSES as readonly string[]).includes(query.status)) {
    throw invalid(`status: one of ${EMAIL_STATUSES.join(", ")}`);
  }
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid("limit: an integer from 1 to 100");
  const [tagName, tagValue] = query.tag?.split(":") ?? [];
  if (query.tag !== undefined && !(tagName && tagValue)) throw invalid("tag: name:value");
  return {
    limit,
    after: query.after,
    status: query.status as EmailStatus | undefined,
    to: address("to", query.to),
    from: address("from", query.from),
    category: query.category,
    tag: tagName && tagValue ? { name: tagName, value: tagValue } : undefined,
    since: queryTime("since", query.since),
    until: queryTime("until", query.until),
    search: query.q === undefined ? undefined : parseSearch(query.q),
  };
}
