import { describe, expect, it } from "vitest";
import { readableDetail } from "./readable.ts";

// Issue 33 item 5: a timeline or audit detail reads as text, not JSON.
describe("readableDetail", () => {
  it("writes keys as words, lists joined, nested objects and lists of objects indented", () => {
    expect(
      readableDetail({
        smtpResponse: "250 2.0.0 Ok: queued",
        failed_emails: 2,
        scopes: ["send", "domains"],
        reason: null,
        recipients: [
          { address: "a@example.test", code: 250 },
          { address: "b@example.test", code: 550 },
        ],
        settings: { limits: { emailsPerSecond: 20 } },
      }),
    ).toBe(
      [
        "Smtp response: 250 2.0.0 Ok: queued",
        "Failed emails: 2",
        "Scopes: send, domains",
        "Reason: —",
        "Recipients:",
        "  - Address: a@example.test",
        "    Code: 250",
        "  - Address: b@example.test",
        "    Code: 550",
        "Settings:",
        "  Limits:",
        "    Emails per second: 20",
      ].join("\n"),
    );
  });

  it("says none for an empty list and shows nothing for an empty detail", () => {
    expect(readableDetail({ events: [] })).toBe("Events: none");
    expect(readableDetail({})).toBe("");
  });
});
