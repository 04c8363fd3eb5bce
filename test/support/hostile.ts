import fc from "fast-check";

/** Fragments that break parsers, headers and databases. */
const fragment = fc.constantFrom(
  "\r\n",
  "\n",
  "\u0000",
  "\ud800",
  "\u202e",
  "\ufeff",
  "😀",
  "é",
  "\\",
  '"',
  "'",
  "<",
  "@",
  ",",
  ":",
  "%",
  "%00",
  "../",
  "/",
  "?",
  "#",
  "__proto__",
  "constructor",
  "a@example.test",
  "x".repeat(1000),
  "2147483648",
  "-1",
  "0",
  "1e308",
  "NaN",
  "00000000-0000-4000-8000-000000000000",
  "2030-01-01T00:00:00Z",
  "{{helperMissing}}",
);

/** Strings built from hostile fragments mixed with arbitrary code points. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fragment, fc.string({ unit: "binary", maxLength: 12 })), { maxLength: 6 })
  .map((parts) => parts.join(""));

/** Numbers at and past the edges of Postgres' integer types and of JSON. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, -(2 ** 31) - 1, 1e308, -1e308, 0.5),
);

/** Any JSON value a client could send in place of the expected one. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(hostileString, { maxLength: 4 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
  fc.constantFrom(null, true, false, "", [], {}),
);

/** A JSON text of `depth` nested arrays or objects: deep enough to overflow any recursive walk. */
export function deeplyNested(depth: number, kind: "array" | "object" = "object"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}
