import { describe, expect, it } from "vitest";
import { normalizeStatsQuery } from "./query.ts";

const now = new Date("2026-03-10T12:34:56Z");

describe("GET /v1/stats's parameters", () => {
  it("default to the last day hourly, or the last 30 days daily, in whole UTC buckets", () => {
    expect(normalizeStatsQuery({}, now)).toEqual({
      from: new Date("2026-03-09T13:00:00Z"),
      to: new Date("2026-03-10T13:00:00Z"),
      bucket: "hour",
      by: null,
    });
    expect(normalizeStatsQuery({ bucket: "day", by: "tag" }, now)).toEqual({
      from: new Date("2026-02-09T00:00:00Z"),
      to: new Date("2026-03-11T00:00:00Z"),
      bucket: "day",
      by: "tag",
    });
    expect(
      normalizeStatsQuery({ from: "2026-03-01T10:30:00+01:00", to: "2026-03-02T00:00:00Z" }, now),
    ).toMatchObject({
      from: new Date("2026-03-01T09:00:00Z"),
      to: new Date("2026-03-02T00:00:00Z"),
    });
  });

  it("refuse what they cannot answer, naming the field", () => {
    const refused = (input: Record<string, string>) => {
      try {
        normalizeStatsQuery(input, now);
      } catch (error) {
        return [(error as { code: string }).code, (error as Error).message];
      }
      return "accepted";
    };
    expect(refused({ bucket: "week" })).toEqual(["validation_error", "bucket: one of hour, day"]);
    expect(refused({ by: "recipient" })).toEqual(["validation_error", "by: one of domain, category, tag"]);
    expect(refused({ from: "yesterday" })).toEqual(["validation_error", "from: an RFC 3339 time"]);
    expect(refused({ from: "2026-03-10T12:00:00Z", to: "2026-03-10T11:00:00Z" })).toEqual([
      "validation_error",
      "from: a time before to",
    ]);
    expect(refused({ from: "2026-01-01T00:00:00Z" })).toEqual([
      "validation_error",
      "from: at most 31 days before to with bucket=hour",
    ]);
    expect(refused({ from: "2025-01-01T00:00:00Z", bucket: "day" })).toEqual([
      "validation_error",
      "from: at most 400 days before to with bucket=day",
    ]);
  });
});
