import type { Pool } from "@mailroom/core/db";
import { type AcceptRequest, acceptEmails, type EmailDraft } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";

/** An accept item for `account`'s key with a plain one-recipient draft; `draft` overrides its fields. */
export function acceptItem(
  account: string,
  apiKeyId: string,
  options: { idempotencyKey?: string; draft?: Partial<EmailDraft> } = {},
): AcceptRequest {
  return {
    account,
    apiKeyId,
    idempotencyKey: options.idempotencyKey,
    bodySha256: options.idempotencyKey ? Buffer.alloc(32, 1) : undefined,
    draft: {
      from: "a@acme.test",
      fromAddress: "a@acme.test",
      to: ["b@example.test"],
      cc: [],
      bcc: [],
      replyTo: [],
      subject: "s",
      text: "t",
      category: "transactional",
      headers: {},
      attachments: [],
      tags: [],
      ...options.draft,
    },
  };
}

/**
 * A flood as it arrives: `count` emails of `account` (a `send` key made for it) from `from`, the nth to
 * `recipient(n)`, accepted in one statement, so their jobs' fair-share turns are exact (0…count-1).
 */
export async function acceptFlood(
  pool: Pool,
  account: string,
  count: number,
  from: string,
  recipient: (n: number) => string,
) {
  const { key } = await createKey(pool, { account, scopes: ["send"], expires: "never" });
  return acceptEmails(
    pool,
    { hostname: "flood.test" },
    Array.from({ length: count }, (_, n) =>
      acceptItem(account, key.keyId, { draft: { from, fromAddress: from, to: [recipient(n)] } }),
    ),
  );
}
