import { defineConfig } from "vitest/config";

// The fixture suite `test/support/run-vitest.test.ts` runs through the runner: its files end in `.fixture.ts`
// so that no other suite collects them. MAILROOM_FIXTURE_ONLY picks one file by name.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: [`${process.env.MAILROOM_FIXTURE_ONLY ?? "*"}.fixture.ts`],
    fileParallelism: false,
    reporters: ["default", "../summary-reporter.ts"],
  },
});
