/**
 * How a benchmark process lives and ends: `runBenchmark` runs its main with a cleanup registry; the steps run
 * in reverse on success, error, Ctrl-C or when the hard time limit passes, so nothing a benchmark started
 * (servers, Postgres, children) outlives it. The process exits with main's code (1 on error or time-out, 130
 * on a signal).
 */
export type OnCleanup = (step: () => Promise<void>) => void;

export async function runBenchmark(hardLimitMs: number, main: (onCleanup: OnCleanup) => Promise<number>) {
  const cleanups: (() => Promise<void>)[] = [];
  // One cleanup, however many callers: a signal stops main's work, main then fails, and its `finally` must wait
  // for the steps the signal started instead of exiting while Postgres is still being stopped.
  let cleaning: Promise<void> | undefined;
  const cleanup = () => {
    cleaning ??= (async () => {
      for (const step of cleanups.splice(0).reverse()) {
        await step().catch((error: unknown) => console.error("cleanup:", error));
      }
    })();
    return cleaning;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping everything the benchmark started …`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  const hardLimit = setTimeout(() => {
    console.error(`benchmark still running after ${hardLimitMs / 60_000} min: stopping everything`);
    void cleanup().finally(() => process.exit(1));
  }, hardLimitMs);
  hardLimit.unref();
  let code = 1;
  try {
    code = await main((step) => cleanups.push(step));
  } catch (error) {
    console.error("benchmark failed:", error);
  } finally {
    await cleanup();
  }
  process.exit(code);
}
