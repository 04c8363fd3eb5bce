/**
 * `vitest run` for the Makefile's suites, with one narrow second chance. Vitest 4 reports a test worker (a
 * forked process) that dies on its own as "Worker exited unexpectedly" and drops its exit code and signal
 * (vitest-dev/vitest#10894); CI has seen it once, after every test of the run had passed. When a run fails
 * only that way (no test failed, no file's hook or import failed, and every unhandled error is a worker's
 * unexpected exit), the files that did not end are run once more, alone, and their run decides. Anything
 * else fails as before. Usage: node test/support/run-vitest.ts [vitest run's arguments]
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RunOutcome } from "./summary-reporter.ts";

const WORKER_EXIT = /Worker exited unexpectedly/;
const VITEST = path.join(import.meta.dirname, "..", "..", "node_modules", "vitest", "vitest.mjs");

function vitestRun(args: string[], outcomeFile: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, "run", ...args], {
      stdio: "inherit",
      env: { ...process.env, MAILROOM_VITEST_OUTCOME: outcomeFile },
    });
    child.on("error", (error) => {
      process.stderr.write(`› could not start vitest (${error.message}): run 'make install' first\n`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

async function outcomeOf(file: string): Promise<RunOutcome | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as RunOutcome;
  } catch {
    return undefined;
  }
}

/** The files to run again when only a worker's death failed the run; none when anything else failed. */
export function filesToRunAgain(outcome: RunOutcome | undefined): string[] {
  if (!outcome || outcome.unhandled.length === 0) return [];
  const onlyWorkerExits = outcome.unhandled.every(
    (error) => WORKER_EXIT.test(error.message) || WORKER_EXIT.test(error.cause ?? ""),
  );
  const noFailure = outcome.modules.every((module) => module.failedTests === 0 && module.errors === 0);
  if (!onlyWorkerExits || !noFailure) return [];
  return outcome.modules
    .filter((module) => module.state !== "passed" && module.state !== "skipped")
    .map((module) => path.relative(process.cwd(), module.file));
}

async function main(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(
      "usage: node test/support/run-vitest.ts [vitest run's arguments]\n" +
        "Runs `vitest run`; when it fails only because a test worker exited unexpectedly, runs the files that\n" +
        "did not end once more, and exits with that run's status.\n",
    );
    return 0;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-vitest-"));
  try {
    const first = await vitestRun(args, path.join(dir, "first.json"));
    if (first === 0) return 0;
    const again = filesToRunAgain(await outcomeOf(path.join(dir, "first.json")));
    if (again.length === 0) return first;
    process.stdout.write(
      `\n› vitest: no test failed, but a test worker exited unexpectedly before its file ended ` +
        `(${again.join(", ")}); running that file once more, alone\n`,
    );
    const second = await vitestRun([...args, ...again], path.join(dir, "second.json"));
    process.stdout.write(
      `› vitest: the second run of ${again.join(", ")} ${second === 0 ? "passed" : "failed"}\n`,
    );
    return second;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
