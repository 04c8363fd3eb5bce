import { execFile } from "node:child_process";
import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DOCUMENT_FILE, renderGeneratedFiles, TYPES_FILE } from "./generate.ts";
import { OPERATIONS } from "./operations.ts";

const run = promisify(execFile);
const root = path.dirname(path.dirname(DOCUMENT_FILE));

/** Runs an npm-installed CLI on this Node (its shebang would pick whatever `node` is first on PATH). */
async function cli(bin: string, args: string[]): Promise<{ stdout: string; code: number }> {
  const script = await realpath(path.join(root, "node_modules/.bin", bin));
  try {
    const { stdout } = await run(process.execPath, [script, ...args], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
      // Offline and quiet: no usage telemetry, no update check.
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", CI: "true" },
    });
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { stdout: failed.stdout ?? "", code: failed.code ?? 1 };
  }
}

describe("the OpenAPI document", () => {
  it("is committed as the routes produce it, and so are the client types generated from it", async () => {
    const wanted = await renderGeneratedFiles();
    expect(await readFile(DOCUMENT_FILE, "utf8")).toBe(wanted.document);
    expect(await readFile(TYPES_FILE, "utf8")).toBe(wanted.types);
  });

  it("documents every operation of OPERATIONS, each with an id, a tag, a summary and its error answers", async () => {
    const document = JSON.parse(await readFile(DOCUMENT_FILE, "utf8")) as {
      paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
    };
    const documented = Object.entries(document.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${p}`, op] as const),
    );
    // The dev inbox is served in every install (each account's captured sandbox mail), so it is documented too.
    const expected = Object.keys(OPERATIONS).map((key) => key.replace(/:(\w+)/g, "{$1}"));
    expect(documented.map(([key]) => key).sort()).toEqual(expected.sort());
    for (const [key, op] of documented) {
      expect(Object.keys(op.responses), key).toEqual(
        expect.arrayContaining(["400", "401", "403", "429", "503"]),
      );
      expect(
        Object.keys(op.responses).some((s) => /^2/.test(s)),
        key,
      ).toBe(true);
    }
  });

  it("has no error under Redocly's recommended rules", async () => {
    const { stdout, code } = await cli("redocly", ["lint", DOCUMENT_FILE, "--format=json"]);
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number } };
    expect(report.totals.errors, stdout.slice(0, 2000)).toBe(0);
    expect(code).toBe(0);
  }, 120_000);

  it("has no error under Spectral's spectral:oas rules", async () => {
    const { stdout, code } = await cli("spectral", [
      "lint",
      DOCUMENT_FILE,
      "--ruleset",
      path.join(root, ".spectral.yaml"),
      "--format=json",
      "--fail-severity=error",
      "--quiet",
    ]);
    const results = JSON.parse(stdout || "[]") as { severity: number; code: string; message: string }[];
    expect(results.filter((r) => r.severity === 0)).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});
