import { existsSync, writeFileSync } from "node:fs";
import { afterAll, expect, it } from "vitest";

// Its worker dies (SIGKILL, as a native crash or the OOM killer would end it) after its test passed, the first
// time only: the marker file, named by the test that runs this suite, says whether it already died once.
const marker = process.env.MAILROOM_FIXTURE_MARKER ?? "";

it("passes", () => {
  expect(marker).not.toBe("");
});

afterAll(() => {
  if (existsSync(marker)) return;
  writeFileSync(marker, "died once\n");
  process.kill(process.pid, "SIGKILL");
});
