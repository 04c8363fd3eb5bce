import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, it } from "vitest";
import { filesToRunAgain } from "./run-vitest.ts";

const run = promisify(execFile);
const CONFIG = path.join(import.meta.dirname, "run-vitest-fixture", "vitest.config.ts");
let dir: string;
let marker: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-run-vitest-"));
  marker = path.join(dir, "died");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runner(only: string): Promise<{ code: number; output: string }> {
  // The runner under test starts a vitest of its own: none of this worker's vitest variables go with it.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("VITEST") && name !== "MAILROOM_VITEST_OUTCOME",
    ),
  );
  Object.assign(env, { MAILROOM_FIXTURE_ONLY: only, MAILROOM_FIXTURE_MARKER: marker, NO_COLOR: "1" });
  try {
    const { stdout, stderr } = await run("node", ["test/support/run-vitest.ts", "-c", CONFIG], { env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

it("runs a file whose worker died after its tests passed once more, and passes when that run passes", async () => {
  const { code, output } = await runner("{dies-once,passes}");
  expect(await readFile(marker, "utf8")).toBe("died once\n");
  expect(output).toMatch(/Worker exited unexpectedly/);
  expect(output).toMatch(
    /a test worker exited unexpectedly before its file ended \(.*dies-once\.fixture\.ts\)/,
  );
  expect(output).toMatch(/the second run of .*dies-once\.fixture\.ts passed/);
  expect(code).toBe(0);
}, 60_000);

it("gives no second chance when a test failed, even beside a dead worker", async () => {
  const { code, output } = await runner("{dies-once,fails}");
  expect(await readFile(marker, "utf8")).toBe("died once\n");
  expect(output).toMatch(/Worker exited unexpectedly/);
  expect(output).not.toMatch(/once more/);
  expect(code).toBe(1);
}, 60_000);

it("asks for a second run only of files that did not end, and only for a worker's death", () => {
  const modules = [
    { file: `${process.cwd()}/a.test.ts`, state: "pending", failedTests: 0, errors: 0 },
    { file: `${process.cwd()}/b.test.ts`, state: "passed", failedTests: 0, errors: 0 },
  ];
  const died = { message: "[vitest-pool]: Worker forks emitted error.", cause: "Worker exited unexpectedly" };
  expect(filesToRunAgain({ modules, unhandled: [died] })).toEqual(["a.test.ts"]);
  expect(filesToRunAgain({ modules, unhandled: [] })).toEqual([]);
  expect(filesToRunAgain({ modules, unhandled: [died, { message: "Unhandled Rejection: boom" }] })).toEqual(
    [],
  );
  const [pending, passed] = modules as [(typeof modules)[0], (typeof modules)[0]];
  const hookFailed = [{ ...pending, errors: 1 }, passed];
  expect(filesToRunAgain({ modules: hookFailed, unhandled: [died] })).toEqual([]);
  expect(filesToRunAgain(undefined)).toEqual([]);
});
