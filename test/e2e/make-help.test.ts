import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

describe("make help", () => {
  it("lists every documented target, without colour codes when not on a terminal", async () => {
    // stdout is a pipe here, as in CI logs or `make help | less`.
    const { stdout } = await run("make", ["--no-print-directory", "help"], { cwd: ROOT, env: process.env });
    expect(stdout).not.toContain("\u001b[");
    const makefile = await readFile(path.join(ROOT, "Makefile"), "utf8");
    const targets = [...makefile.matchAll(/^([a-zA-Z0-9_-]+):.*## /gm)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(stdout).toMatch(new RegExp(`^  ${target} +\\S`, "m"));
  });
});
