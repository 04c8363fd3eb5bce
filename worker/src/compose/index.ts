// Composition (issue 35): an email's RFC 5322 message, from its fields or from what its SMTP client
// submitted, and its 7-bit form for a next hop without 8BITMIME. The deliver task signs and hands it over.
import type { Queryable } from "@mailroom/core/db";
import { type EmailRecord, loadAttachments, loadRawMessage } from "@mailroom/core/emails";
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
