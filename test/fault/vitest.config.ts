import { defineConfig } from "vitest/config";

// The standing fault suite (`make test-faults`): each file starts its own Postgres, programs as separate
// processes, and breaks one thing under load. Files run one at a time: they measure recovery, and the box is small.
export default defineConfig({
  test: {
    root: `${import.meta.dirname}/../..`,
    include: ["test/fault/**/*.fault.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    fileParallelism: false,
    testTimeout: 150_000,
    hookTimeout: 120_000,
  },
});
