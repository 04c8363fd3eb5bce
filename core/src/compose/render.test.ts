import MailComposer from "nodemailer/lib/mail-composer";
import { describe, expect, it } from "vitest";
import { renderMime } from "./render.ts";

type Mail = ConstructorParameters<typeof MailComposer>[0];

const base: Mail = {
  from: "Acme Billing <billing@acme.test>",
  to: ["Ann <ann@example.test>"],
  subject: "Invoice",
  messageId: "<m1@mailroom.test>",
  date: new Date("2026-11-26T12:00:00Z"),
  headers: { "X-Mailroom-Category": "billing" },
};

const binary = Buffer.from(Array.from({ length: 3001 }, (_, i) => (i * 37) % 256));
const cases: Record<string, Mail> = {
  "plain ASCII text (7bit)": { ...base, text: "Hello.\r\nSecond line." },
  "text without a final line break": { ...base, text: "no newline at the end" },
  "text ending in a bare CR": { ...base, text: "ends in CR\r" },
  "html only": { ...base, html: "<p>only html</p>" },
  "text and html (alternative)": { ...base, text: "Hello", html: "<b>Hello</b>" },
  "non-ASCII headers and bodies (quoted-printable)": {
    ...base,
    from: "Jürgen Müller <j@acme.test>",
    to: ["Zoë <zoe@example.test>", "日本 <ja@example.test>"],
    cc: ["Ça va <cv@example.test>"],
    replyTo: ["Support ☃ <s@acme.test>"],
    subject: "Grüße aus Köln — ✓ 日本語の件名が長い場合の折り返しも確認する",
    text: "Grüße,\r\ntrailing blanks   \r\n\ttab\r\n.dot line\r\n",
    html: "<p>Grüße ✓</p>",
    headers: { ...base.headers, "X-Note": "naïve café" },
  },
  "mostly non-ASCII text (base64)": { ...base, text: "日本語のテキスト".repeat(40) },
  "long lines and a long subject": {
    ...base,
    subject: "s".repeat(997),
    text: `${"x".repeat(5000)}\r\n${"word ".repeat(400)}`,
    html: `<p>${"y".repeat(5000)}</p>`,
    headers: { "X-Long": "v".repeat(997) },
  },
  "attachments, inline image with a Content-ID": {
    ...base,
    text: "see attached",
    html: '<img src="cid:logo@acme.test">',
    attachments: [
      { filename: "invoice 42.pdf", contentType: "application/pdf", content: binary },
      {
        filename: "logo.png",
        contentType: "image/png",
        content: binary.subarray(0, 67),
        cid: "logo@acme.test",
      },
      { filename: "notes.txt", contentType: "text/plain", content: Buffer.from("plain text attachment\n") },
      { filename: "empty.bin", contentType: "application/octet-stream", content: Buffer.alloc(0) },
      { filename: "Übersicht ✓.csv", content: Buffer.from("a;b\r\n1;2\r\n") },
    ],
  },
  "large html (over one 64 KiB encoder slice)": { ...base, html: `<p>${"Grüße ".repeat(20_000)}</p>` },
  "blanks where the encoder's 64 KiB slices meet": {
    ...base,
    text: `ü${"a".repeat(65_532)}  b ${"c ".repeat(40_000)}\r\nend  `,
  },
};

describe("composing a message in one pass", () => {
  for (const [name, mail] of Object.entries(cases)) {
    it(`writes the bytes nodemailer's streamed build writes: ${name}`, async () => {
      const tree = new MailComposer(mail).compile();
      const streamed = await tree.build();
      expect(renderMime(tree).toString("latin1")).toBe(streamed.toString("latin1"));
    });
  }
});
