import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { checkLineLengths } from "../support/line-length.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" } });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
  ({ fullKey: key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await db?.drop();
});

async function waitForStatus(id: string, status: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.pool.query("select status from emails where id = $1", [id]);
    if (rows[0]?.status === status) return;
    if (Date.now() > deadline) throw new Error(`email ${id} is ${rows[0]?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The header section of a raw message, unfolded, as lower-cased `name: value` lines. */
function headerLines(raw: Buffer): string[] {
  const text = raw.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  return text
    .slice(0, end)
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n")
    .map((l) => l.toLowerCase());
}

describe("every send field, delivered through the worker to SMTP", () => {
  it("carries cc, Reply-To, custom headers and attachments; bcc only in the envelope; tags not at all", async () => {
    const pdf = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a1d5a07b0000000049454e44ae426082",
      "hex",
    );
    const res = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "Acme Billing <billing@acme.test>",
        to: "Ann <ann@example.test>",
        cc: ["Carol <carol@example.test>", "cory@example.test"],
        bcc: ["secret-bcc@hidden.test", "Other Secret <other-bcc@hidden.test>"],
        replyTo: "Support <support@acme.test>",
        subject: "Invoice attached",
        html: '<p>Invoice</p><img src="cid:logo-123@acme.test">',
        text: "Invoice",
        category: "billing",
        headers: { "X-Invoice-Id": "INV-42", "List-Unsubscribe": "<mailto:unsub@acme.test>" },
        tags: [
          { name: "invoice", value: "INV-42" },
          { name: "tagmarker", value: "tagvaluemarker" },
        ],
        attachments: [
          { filename: "invoice 42.pdf", content: pdf.toString("base64"), contentType: "application/pdf" },
          {
            filename: "logo.png",
            content: png.toString("base64"),
            contentType: "image/png",
            contentId: "logo-123@acme.test",
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    const id = String(res.json.messageId);
    await waitForStatus(id, "delivered");
    const message = sink.messages.find((m) => m.parsed.messageId === `<${id}@mailroom.localhost>`);
    if (!message) throw new Error("the sink did not receive the message");

    // Envelope: every recipient, bcc included.
    expect(message.envelope.from).toBe("billing@acme.test");
    expect([...message.envelope.to].sort()).toEqual(
      [
        "ann@example.test",
        "carol@example.test",
        "cory@example.test",
        "other-bcc@hidden.test",
        "secret-bcc@hidden.test",
      ].sort(),
    );

    // Headers: cc and Reply-To shown, bcc never.
    const { parsed, raw } = message;
    expect(parsed.cc?.map((a) => [a.name, a.address])).toEqual([
      ["Carol", "carol@example.test"],
      ["", "cory@example.test"],
    ]);
    expect(parsed.replyTo?.map((a) => [a.name, a.address])).toEqual([["Support", "support@acme.test"]]);
    expect(parsed.bcc ?? []).toEqual([]);
    const headers = headerLines(raw);
    expect(headers.some((l) => l.startsWith("bcc:"))).toBe(false);
    expect(raw.toString("latin1")).not.toContain("hidden.test");

    // Custom headers as given; tags are not headers.
    const header = (name: string) => parsed.headers.find((h) => h.key === name.toLowerCase())?.value;
    expect(header("X-Invoice-Id")).toBe("INV-42");
    expect(header("List-Unsubscribe")).toBe("<mailto:unsub@acme.test>");
    expect(header("X-Mailroom-Category")).toBe("billing");
    expect(raw.toString("latin1")).not.toMatch(/tagmarker|tagvaluemarker/i);

    // Attachments byte for byte, the inline image with its Content-ID.
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    const invoice = byName.get("invoice 42.pdf");
    const logo = byName.get("logo.png");
    expect(invoice?.mimeType).toBe("application/pdf");
    expect(invoice?.disposition).toBe("attachment");
    expect(Buffer.from(invoice?.content as ArrayBuffer)).toEqual(pdf);
    expect(logo?.mimeType).toBe("image/png");
    expect(logo?.contentId).toBe("<logo-123@acme.test>");
    expect(logo?.disposition).toBe("inline");
    expect(Buffer.from(logo?.content as ArrayBuffer)).toEqual(png);
    expect(parsed.html).toContain('src="cid:logo-123@acme.test"');
    expect(parsed.text?.trim()).toBe("Invoice");
  });

  it("delivers every field at its longest with no line over 998 octets (RFC 5322)", async () => {
    // No whitespace anywhere, so nothing can be folded: the values sit alone on continuation lines.
    const long = (c: string, n: number) => c.repeat(n);
    const res = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: `${long("n", 200)} <${long("f", 64)}@acme.test>`,
        to: `${long("t", 64)}@${long("d", 60)}.${long("e", 60)}.test`,
        subject: long("s", 997),
        text: long("x", 5000),
        html: `<p>${long("y", 5000)}</p>`,
        headers: { "X-Long": long("v", 997), [`X-${long("N", 74)}`]: long("w", 997) },
        attachments: [{ filename: `${long("a", 251)}.txt`, content: "YWJj", contentId: long("c", 200) }],
      },
    });
    expect(res.status, res.text).toBe(200);
    const id = String(res.json.messageId);
    await waitForStatus(id, "delivered");
    const message = sink.messages.find((m) => m.parsed.messageId === `<${id}@mailroom.localhost>`);
    if (!message) throw new Error("the sink did not receive the message");
    expect(message.parsed.subject).toBe(long("s", 997));
    expect(message.parsed.headers.find((h) => h.key === "x-long")?.value).toBe(long("v", 997));
    expect(checkLineLengths(message.raw)).toEqual([]);
    // One more character would need a 999-octet line: the API refuses it instead.
    for (const body of [{ subject: long("s", 998) }, { headers: { "X-Long": long("v", 998) } }]) {
      const refused = await api.request("POST", "/v1/send", {
        key,
        body: { from: "a@acme.test", to: "b@example.test", subject: "s", text: "t", ...body },
      });
      expect(refused.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(refused.json.error).toBe("validation_error");
    }
  });

  it("sends html-only and text-only mail as single parts", async () => {
    const html = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "h@example.test", subject: "H", html: "<b>only html</b>" },
    });
    const text = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "t@example.test", subject: "T", text: "only text" },
    });
    await waitForStatus(String(html.json.messageId), "delivered");
    await waitForStatus(String(text.json.messageId), "delivered");
    const h = sink.messages.find((m) => m.envelope.to.includes("h@example.test"));
    const t = sink.messages.find((m) => m.envelope.to.includes("t@example.test"));
    expect(h?.parsed.html).toContain("<b>only html</b>");
    expect(headerLines(h?.raw as Buffer).find((l) => l.startsWith("content-type:"))).toMatch(/text\/html/);
    expect(t?.parsed.text?.trim()).toBe("only text");
    expect(headerLines(t?.raw as Buffer).find((l) => l.startsWith("content-type:"))).toMatch(/text\/plain/);
    // No Reply-To or Cc when none was given.
    expect(headerLines(t?.raw as Buffer).some((l) => /^(reply-to|cc|bcc):/.test(l))).toBe(false);
  });
});
