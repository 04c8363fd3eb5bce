import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const LIMIT = 300;
/** Source files: what people write and read as code (tests excluded: the issue counts source files). */
const SOURCE = /\.(ts|mts|mjs|js|sql|sh|css|html|py|go|java|rb|php)$/;
const TEST = /\.test\.ts$/;
/** Written by a program, checked by `make check-generated`, never read as code. */
const GENERATED = new Set(["api/src/client/openapi-types.ts", "core/sql/schema.sql"]);
const RATCHET: Record<string, number> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "long-files.json"), "utf8"),
);
delete RATCHET["//"];

/** Lines of every tracked hand-written source file (as `wc -l` counts them). */
function sourceLengths(): Map<string, number> {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0");
  const lengths = new Map<string, number>();
  for (const file of files) {
    if (!SOURCE.test(file) || TEST.test(file) || GENERATED.has(file)) continue;
    const text = readFileSync(path.join(ROOT, file), "utf8");
    lengths.set(file, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
  }
  return lengths;
}

// Issue 35 item 4: files stay under ~300 lines; the few over it today may shrink, never grow.
describe("source file length ratchet", () => {
  const lengths = sourceLengths();

  it(`no new hand-written source file is over ${LIMIT} lines`, () => {
    const over = [...lengths].filter(([file, n]) => n > LIMIT && !(file in RATCHET));
    expect(over.map(([file, n]) => `${file}: ${n} lines (split it)`)).toEqual([]);
  });

  it("the files over the limit today do not grow, and their entries follow them down", () => {
    const drift = Object.entries(RATCHET).flatMap(([file, allowed]) => {
      const n = lengths.get(file);
      if (n === undefined) return [`${file}: gone, remove its entry from long-files.json`];
      if (n > allowed) return [`${file}: ${n} lines, grew past ${allowed} (split it)`];
      if (n <= LIMIT) return [`${file}: ${n} lines, within the limit now: remove its entry`];
      if (n < allowed) return [`${file}: ${n} lines, lower its entry from ${allowed}`];
      return [];
    });
    expect(drift).toEqual([]);
  });
});
