/**
 * How a benchmark process lives and ends: `runBenchmark` runs its main with a cleanup registry; the steps run
 * in reverse on success, error, Ctrl-C or when the hard time limit passes, so nothing a benchmark started
 * (servers, Postgres, children) outlives it. The process exits with main's code (1 on error or time-out, 130
 * on a signal). `--help` prints the benchmark's own description (its main module's first doc comment, which
 * names the environment variables it reads) and starts nothing.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

export type OnCleanup = (step: () => Promise<void>) => void;

async function printHelp(): Promise<void> {
  const script = process.argv[1] ?? "";
  const text = await readFile(script, "utf8").catch(() => "");
  const doc = /\/\*\*([\s\S]*?)\*\//.exec(text)?.[1] ?? "";
  const description = doc
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim();
  process.stdout.write(
    `usage: npx node ${path.relative(process.cwd(), script)}   (settings: the environment variables below)\n\n${description}\n`,
  );
}

/** With `--help` or `-h`: prints the benchmark's description and exits before it starts anything. */
export async function exitIfHelp(): Promise<void> {
  if (!process.argv.slice(2).some((arg) => arg === "--help" || arg === "-h")) return;
  await printHelp();
  process.exit(0);
}

export async function runBenchmark(hardLimitMs: number, main: (onCleanup: OnCleanup) => Promise<number>) {
  await exitIfHelp();
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
  // Output piped into a reader that has gone (`| head`): stop as on a signal, instead of dying on EPIPE with
  // Postgres and the children left running.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => void cleanup().finally(() => process.exit(1)));
  }
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
