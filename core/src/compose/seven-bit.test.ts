import PostalMime from "postal-mime";
import { describe, expect, it } from "vitest";
import { eightBitOf, toSevenBit } from "./index.ts";

const lines = (...l: string[]) => Buffer.from(`${l.join("\r\n")}\r\n`, "utf8");
const attachedMessage = lines("From: Zoë <z@example.test>", "Subject: Grüße", "", "Inner body ✓");
const message = Buffer.concat([
  lines(
    'From: "Jörg Müller" <j@acme.test>',
    "To: josé@example.test, Ann <ann@example.test>",
    "Subject: Prête à partir — ✓",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b1"',
    "",
    "--b1",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    "Une journée prête.",
    "--b1",
    "Content-Type: application/octet-stream; name=data.bin",
    "Content-Disposition: attachment; filename=data.bin",
    "Content-Transfer-Encoding: binary",
    "",
    "\u00ff\u00fe raw",
    "--b1",
    "Content-Type: message/rfc822",
    "Content-Disposition: attachment; filename=fwd.eml",
    "Content-Transfer-Encoding: 8bit",
    "",
  ),
  attachedMessage,
  lines("--b1--"),
]);

describe("the 7-bit form of a message, for a next hop without 8BITMIME", () => {
  it("says where the 8-bit bytes are", () => {
    expect(eightBitOf(message)).toEqual({ headers: true, body: true });
    expect(eightBitOf(lines("Subject: x", "", "Grüße"))).toEqual({ headers: false, body: true });
    expect(eightBitOf(lines("Subject: x", "", "plain"))).toEqual({ headers: false, body: false });
  });

  it("encodes every 8-bit part and header and reads back the same", async () => {
    const converted = await toSevenBit(message);
    const text = converted.toString("latin1");
    // Only the UTF-8 local part, which has no 7-bit form, keeps 8-bit bytes.
    expect(text.replace(Buffer.from("josé").toString("latin1"), "jose")).not.toMatch(/[\u0080-\u00ff]/);
    expect(text).toMatch(/Content-Transfer-Encoding: quoted-printable\r\n\r\nUne journ=C3=A9e pr=C3=AAte\./);
    expect(text).toContain("Content-Transfer-Encoding: base64");
    expect(text).not.toContain("Content-Transfer-Encoding: 8bit");
    for (const line of text.split("\r\n")) expect(line.length).toBeLessThanOrEqual(998);
    const before = await PostalMime.parse(message);
    const after = await PostalMime.parse(converted);
    expect(after.subject).toBe("Prête à partir — ✓");
    expect(after.from).toEqual(before.from);
    expect(after.to).toEqual(before.to);
    expect(after.text).toBe(before.text);
    // The CRLF before a boundary belongs to the boundary (RFC 2046 §5.1.1): the binary part is these bytes.
    const binary = after.attachments.find((a) => a.filename === "data.bin");
    expect(Buffer.from(binary?.content as ArrayBuffer).toString("utf8")).toBe("\u00ff\u00fe raw");
    expect(after.attachments.map((a) => [a.filename, a.mimeType])).toEqual(
      before.attachments.map((a) => [a.filename, a.mimeType]),
    );
    const inner = after.attachments.find((a) => a.mimeType === "message/rfc822");
    const innerParsed = await PostalMime.parse(Buffer.from(inner?.content as ArrayBuffer));
    expect([innerParsed.subject, innerParsed.from?.name, innerParsed.text?.trim()]).toEqual([
      "Grüße",
      "Zoë",
      "Inner body ✓",
    ]);
  });

  it("leaves a 7-bit message byte for byte as it was", async () => {
    const plain = lines(
      "From: a@acme.test",
      "Subject: x",
      "MIME-Version: 1.0",
      "Content-Type: text/plain",
      "",
      "Hello.",
    );
    expect((await toSevenBit(plain)).equals(plain)).toBe(true);
  });
});
