import { writeFileSync } from "node:fs";
import type { SerializedError } from "vitest";
import type { Reporter, TestModule } from "vitest/node";

/** What `test/support/run-vitest.ts` reads to tell a dead test worker from a failed test. */
export interface RunOutcome {
  /** Every file of the run with its state (`passed`, `failed`, `skipped`, or `pending` when it never ended). */
  modules: { file: string; state: string; failedTests: number; errors: number }[];
  /** The run's unhandled errors: each message and its cause's message. */
  unhandled: { message: string; cause?: string }[];
}

/**
 * Ends the run with the plain `N passed, N failed, N skipped` line that CI reads, and, when
 * MAILROOM_VITEST_OUTCOME names a file, writes the run's outcome there for the runner.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const outcome: RunOutcome = { modules: [], unhandled: [] };
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedTests++;
        else skipped++;
      }
      failed += failedTests;
      // A file that failed outside its tests (an error while loading or in a hook) counts as a failure.
      if (module.errors().length > 0) failed++;
      outcome.modules.push({
        file: module.moduleId,
        state: module.state(),
        failedTests,
        errors: module.errors().length,
      });
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const file = process.env.MAILROOM_VITEST_OUTCOME;
    if (!file) return;
    outcome.unhandled = unhandledErrors.map((error) => ({
      message: String(error.message ?? ""),
      cause: (error.cause as SerializedError | undefined)?.message,
    }));
    writeFileSync(file, JSON.stringify(outcome));
  }
}
