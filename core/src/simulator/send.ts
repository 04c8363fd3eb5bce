import type { Queryable } from "../db/pool.ts";
import { envelopeRecipients } from "../emails/address.ts";
import type { EmailDraft } from "../emails/types.ts";
import { addSuppressions } from "../suppressions/store.ts";
import { isSimulatedMail, simulatorMailboxOf } from "./addresses.ts";

/** Why a `suppressed@` address is on every account's list, as its suppression entry says. */
export const SUPPRESSED_DETAIL = "mailbox simulator: suppressed@ is always on the suppression list";

/**
 * What the simulator does at accept, before the email is written: a `suppressed@` recipient is put on the
 * sending account's suppression list (as `manual`, through the list's one writer), so the claim drops it
 * exactly as it drops any suppressed address: same state, timeline and webhook event, no special case
 * downstream. Returns whether the email is simulator mail (`emails.simulated`).
 */
export async function prepareSimulatorSend(
  db: Queryable,
  account: string,
  draft: Pick<EmailDraft, "to" | "cc" | "bcc">,
  domain: string | undefined,
): Promise<boolean> {
  if (domain === undefined) return false;
  const recipients = envelopeRecipients([...draft.to, ...draft.cc, ...draft.bcc]);
  const suppressed = recipients.filter((r) => simulatorMailboxOf(r, domain) === "suppressed");
  await addSuppressions(
    db,
    account,
    suppressed.map((address) => ({ address, reason: "manual", detail: SUPPRESSED_DETAIL })),
  );
  return isSimulatedMail(recipients, domain);
}
