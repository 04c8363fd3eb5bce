import { describe, expect, it } from "vitest";
import type { EmailRecord } from "../emails/types.ts";
import { composeApiMessage } from "./api-message.ts";

const email = (id: string): EmailRecord => ({
  id,
  account: "default",
  apiKeyId: "k",
  status: "queued",
  failureReason: null,
  from: "Acme <a@acme.test>",
  fromAddress: "a@acme.test",
  to: ["b@example.test"],
  cc: [],
  bcc: [],
  replyTo: [],
  headers: {},
  tags: [],
  scheduledAt: null,
  requireTls: false,
  tlsPolicyExempt: null,
  subject: "Hello",
  html: '<p>Hi</p><img src="cid:logo@acme.test">',
  text: "Hi",
  category: "transactional",
  messageIdHeader: `<${id}@acme.test>`,
  source: "api",
  sandbox: false,
  simulated: false,
  attempts: 0,
  lastSmtpResponse: null,
  recipientResults: {},
  createdAt: new Date("2026-11-29T01:00:00Z"),
  updatedAt: new Date("2026-11-29T01:00:00Z"),
});
const attachments = [
  { filename: "notes.txt", contentType: "text/plain", content: Buffer.from("notes") },
  {
    filename: "logo.png",
    contentType: "image/png",
    content: Buffer.from("png"),
    contentId: "logo@acme.test",
  },
];
const boundaries = (raw: Buffer) =>
  [...raw.toString("latin1").matchAll(/boundary="([^"]+)"/g)].map((m) => m[1]);

/** ADR 0071: one email composes to the same bytes every time, so the API's `/raw` is what was delivered. */
describe("composeApiMessage", () => {
  it("composes one email to the same bytes each time, its boundaries drawn from its id", () => {
    const id = "019ac4a2-7a8b-7c00-8000-0000000000a1";
    const first = composeApiMessage(email(id), attachments);
    expect(composeApiMessage(email(id), attachments).equals(first)).toBe(true);
    // mixed, related and alternative: three multipart nodes sharing the id's part.
    const own = boundaries(first);
    expect(own).toHaveLength(3);
    for (const b of own) expect(b).toMatch(/^--_NmP-[0-9a-f]{16}-Part_\d+$/);
    const other = boundaries(composeApiMessage(email("019ac4a2-7a8b-7c00-8000-0000000000a2"), attachments));
    expect(other).toHaveLength(3);
    for (const b of other) expect(own).not.toContain(b);
  });
});
