import { z } from "zod";
import { ConfigError } from "../error.ts";
import type { AreaEnv } from "./kinds.ts";

const ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i;

/**
 * TLS reporting (RFC 8460; issue 32 item 3, ADR 0058): who Mailroom's daily reports come from. Unset
 * MAILROOM_TLSRPT_FROM: the sessions are counted, no report is sent.
 */
export const variables = {
  // The From address of the reports: a verified sending domain of the reporting key's account.
  MAILROOM_TLSRPT_FROM: z.string().trim().regex(ADDRESS, "an email address").optional(),
  // The API key (its 12-character id) whose account sends the mailto reports, as any of its emails.
  MAILROOM_TLSRPT_KEY_ID: z
    .string()
    .trim()
    .regex(/^[0-9A-Za-z]{12}$/, "an API key id (12 letters and digits)")
    .optional(),
  MAILROOM_TLSRPT_ORGANIZATION: z
    .string()
    .trim()
    .regex(/^[\x20-\x7e]{1,200}$/, "printable ASCII, at most 200 characters")
    .optional(),
  MAILROOM_TLSRPT_CONTACT: z.string().trim().min(1).max(320).optional(),
};

export function build(e: AreaEnv<typeof variables>) {
  if (e.MAILROOM_TLSRPT_FROM !== undefined && e.MAILROOM_TLSRPT_KEY_ID === undefined) {
    throw new ConfigError(
      "MAILROOM_TLSRPT_FROM needs MAILROOM_TLSRPT_KEY_ID: the key whose account sends the reports",
    );
  }
  const from = e.MAILROOM_TLSRPT_FROM?.toLowerCase();
  const submitter = from?.slice(from.lastIndexOf("@") + 1);
  return {
    /** Undefined: TLS reports are not sent (the sessions are still counted). */
    tlsReports:
      from && submitter && e.MAILROOM_TLSRPT_KEY_ID
        ? {
            from,
            keyId: e.MAILROOM_TLSRPT_KEY_ID,
            submitter,
            organizationName: e.MAILROOM_TLSRPT_ORGANIZATION ?? submitter,
            contactInfo: e.MAILROOM_TLSRPT_CONTACT ?? from,
          }
        : undefined,
  };
}
