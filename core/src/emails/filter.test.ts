import { describe, expect, it } from "vitest";
import { normalizeEmailFilter } from "./filter.ts";

describe("normalizeEmailFilter (the email log's filters, beside listEmails)", () => {
  it("normalises addresses as stored, parses times and tags, and defaults the page size", () => {
    expect(
      normalizeEmailFilter({
        to: "Ann@Example.TEST",
        from: "shop@example.test",
        tag: "run:42",
        since: "2026-01-01T00:00:00Z",
        until: "2026-01-02T00:00:00+01:00",
        after: "0190a4c2-7a8b-7c00-8000-000000000001",
        status: "queued",
      }),
    ).toEqual({
      limit: 20,
      after: "0190a4c2-7a8b-7c00-8000-000000000001",
      status: "queued",
      to: "Ann@example.test",
      from: "shop@example.test",
      category: undefined,
      tag: { name: "run", value: "42" },
      since: new Date("2026-01-01T00:00:00Z"),
      until: new Date("2026-01-01T23:00:00Z"),
    });
    expect(normalizeEmailFilter({ limit: "100" }).limit).toBe(100);
  });

  it("refuses what names nothing, as validation_error naming the field", () => {
    for (const [query, field] of [
      [{ after: "nope" }, "after"],
      [{ since: "yesterday" }, "since"],
      [{ to: "not an address" }, "to"],
      [{ status: "lost" }, "status"],
      [{ limit: "0" }, "limit"],
      [{ tag: "novalue" }, "tag"],
    ] as const) {
      expect(() => normalizeEmailFilter(query), field).toThrow(
        expect.objectContaining({ code: "validation_error" }),
      );
      expect(() => normalizeEmailFilter(query), field).toThrow(new RegExp(`^${field}:`));
    }
  });
});
