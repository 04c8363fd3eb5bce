// Composition (issue 35, ADR 0071): an email's RFC 5322 message, from its fields or from what its SMTP client
// submitted, and its 7-bit form for a next hop without 8BITMIME. In core because two programs build it: the
// worker's deliver task (which signs and hands it over) and the API's `GET /v1/emails/{id}/raw` (unsigned).
import { isUuid } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import { getEmail, loadAttachments, loadRawMessage } from "../emails/queries.ts";
import type { EmailRecord } from "../emails/types.ts";
import { composeApiMessage } from "./api-message.ts";
import { composeSubmitted } from "./submitted.ts";

export { eightBitOf, toSevenBit } from "./seven-bit.ts";

/** The RFC 5322 message of an email: composed from its fields, or the one its SMTP client submitted. */
export async function composeEmail(
  db: Queryable,
  email: EmailRecord,
  hasAttachments: boolean,
): Promise<Buffer> {
  if (email.source === "smtp") {
    const submitted = await loadRawMessage(db, email.id);
    if (!submitted) throw new Error(`email ${email.id} was submitted over SMTP but its message is missing`);
    return composeSubmitted(email, submitted);
  }
  const attachments = hasAttachments ? await loadAttachments(db, email.id) : [];
  return composeApiMessage(email, attachments);
}

/**
 * An account's email as the deliver task builds it, before DKIM signing, in its 8-bit form: the same bytes
 * every attempt hands over but for the DKIM-Signature fields (ADR 0071). Undefined when the account has no
 * such email (another account's email is indistinguishable from a missing one; a non-UUID id names none).
 * Whatever its status: a scheduled or queued email is built as its first attempt will build it.
 */
export async function composeAccountEmail(
  db: Queryable,
  account: string,
  id: string,
): Promise<Buffer | undefined> {
  const email = isUuid(id) ? await getEmail(db, account, id) : undefined;
  return email && composeEmail(db, email, true);
}
