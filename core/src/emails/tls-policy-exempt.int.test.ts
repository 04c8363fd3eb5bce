import { describe, expect, it } from "vitest";
import { type TestDatabase, useDatabaseWithKey } from "../../../test/support/db.ts";
import { type AcceptRequest, acceptEmails } from "./accept.ts";
import { createDeliveryStore } from "./delivery.ts";
import { normalizeSendRequest } from "./send-request.ts";
import { normalizeSubmittedMessage } from "./submitted-message.ts";
import type { AcceptItem } from "./types.ts";

let db: TestDatabase;
let keyId: string;
useDatabaseWithKey("exempt", (setup) => {
  ({ db, keyId } = setup);
});

const api = (headers: Record<string, string>, requireTls?: boolean) =>
  normalizeSendRequest({
    from: "app@acme.test",
    to: "ann@example.test",
    subject: "s",
    text: "t",
    headers,
    ...(requireTls === undefined ? {} : { requireTls }),
  });
const smtp = (headerLines: string[], requireTls = false) =>
  normalizeSubmittedMessage({
    mailFrom: "app@acme.test",
    recipients: ["ann@example.test"],
    message: Buffer.from(
      ["From: app@acme.test", "To: ann@example.test", "Subject: s", ...headerLines, "", "t", ""].join("\r\n"),
    ),
    requireTls,
  });

/** What accept stores for the item, and what the worker's claim reads back. */
async function stored(item: AcceptItem, extra: Partial<AcceptRequest> = {}) {
  const [accepted] = await acceptEmails(db.pool, { hostname: "test" }, [
    { ...item, account: "exempt", apiKeyId: keyId, source: item.draft.raw ? "smtp" : "api", ...extra },
  ]);
  const id = String(accepted?.messageId);
  const { rows } = await db.pool.query<{ tls_policy_exempt: string | null; require_tls: boolean }>(
    "select tls_policy_exempt, require_tls from emails where id = $1",
    [id],
  );
  const claimed = await createDeliveryStore(db.pool).claim(id);
  const read = claimed.outcome === "send" ? claimed.email.tlsPolicyExempt : "not claimed";
  expect(read).toBe(rows[0]?.tls_policy_exempt);
  return rows[0];
}

describe("receivers' TLS policies not applied to an email (emails.tls_policy_exempt)", () => {
  it("by `TLS-Required: No` (RFC 8689 §5), through either door, in any case", async () => {
    expect(await stored(api({ "TLS-Required": "No" }))).toEqual({
      tls_policy_exempt: "tls-required-no",
      require_tls: false,
    });
    expect((await stored(api({ "tls-required": " no " })))?.tls_policy_exempt).toBe("tls-required-no");
    expect((await stored(smtp(["TLS-Required: No"])))?.tls_policy_exempt).toBe("tls-required-no");
    expect((await stored(smtp(["tls-required:no"])))?.tls_policy_exempt).toBe("tls-required-no");
  });

  it("not by another value, nor by a message without the header", async () => {
    expect((await stored(api({ "TLS-Required": "Yes" })))?.tls_policy_exempt).toBeNull();
    expect((await stored(api({ "X-TLS-Required": "No" })))?.tls_policy_exempt).toBeNull();
    expect((await stored(smtp(["TLS-Required: Nope"])))?.tls_policy_exempt).toBeNull();
    expect((await stored(smtp([])))?.tls_policy_exempt).toBeNull();
  });

  it("not when the email also requires TLS: REQUIRETLS wins and the header is ignored (RFC 8689 §4.1)", async () => {
    expect(await stored(api({ "TLS-Required": "No" }, true))).toEqual({
      tls_policy_exempt: null,
      require_tls: true,
    });
    expect(await stored(smtp(["TLS-Required: No"], true))).toEqual({
      tls_policy_exempt: null,
      require_tls: true,
    });
  });

  it("for a TLS report's email, which only core code marks (RFC 8460 §5.3)", async () => {
    expect((await stored(smtp([]), { tlsReport: true }))?.tls_policy_exempt).toBe("tls-report");
    // The send request has no field for it: an unknown body field is no way in either.
    const body = { from: "a@acme.test", to: "b@example.test", subject: "s", text: "t", tlsReport: true };
    expect((await stored(normalizeSendRequest(body)))?.tls_policy_exempt).toBeNull();
  });
});
