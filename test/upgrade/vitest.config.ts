import { defineConfig } from "vitest/config";

// The upgrade suite (`make test-upgrade`): the previous release's programs, built from its commit and cached
// outside the repo, rolled to this checkout's under load. Its own Postgres per file, one file at a time.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/../..`,
    include: ["test/upgrade/**/*.upgrade.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    fileParallelism: false,
    testTimeout: 600_000,
    // A cold build of the previous release (`npm ci`) happens in the first hook.
    hookTimeout: 900_000,
  },
});
