import type { AcceptRequest, EmailDraft } from "@mailroom/core/emails";

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
