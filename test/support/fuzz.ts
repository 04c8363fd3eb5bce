import fc from "fast-check";

/**
 * How every property (fuzz) suite runs, so that no seed can turn CI red and every failure found can be
 * replayed: first a fixed corpus of seeds (the same inputs on every run), then, outside CI, one fresh seed,
 * printed before it runs and named in the failure. In CI (`CI` set, as `.ci/run` sets it) only the corpus
 * runs: the same inputs on every run, so a red CI is a change's doing, never a draw's. `FUZZ_SEED=<n>`
 * replays a printed seed; `FUZZ_ROUNDS=<n>` draws that many fresh seeds (`make fuzz` hunts with 20). A
 * counterexample a run finds is kept in the suite's list of fixed cases, which run on every seed.
 */
export interface FuzzOptions<T> {
  /** Runs per seed. */
  numRuns: number;
  /** Seeds run every time. */
  corpus: readonly number[];
  /** Inputs that once failed: fast-check runs them before anything it generates. */
  examples?: readonly T[];
}

const freshSeeds = (): number[] => {
  if (process.env.FUZZ_SEED) return [Number(process.env.FUZZ_SEED)];
  const rounds = process.env.FUZZ_ROUNDS ? Math.max(1, Number(process.env.FUZZ_ROUNDS)) : inCi() ? 0 : 1;
  return Array.from({ length: rounds }, () => (Math.random() * 2 ** 31) | 0);
};

const inCi = () => Boolean(process.env.CI) && process.env.CI !== "false";

/** The seed CI draws plain `fc.assert` properties from (see `fixPropertySeedInCi`). */
const CI_PROPERTY_SEED = 20261129;

/**
 * For a file of plain `fc.assert` properties (not `fuzz`): in CI (unless `FUZZ_SEED` or `FUZZ_ROUNDS` asks
 * otherwise) every property of the file draws from one fixed seed, the same inputs on every run, as `fuzz`'s
 * corpus does; elsewhere fast-check draws a fresh seed and names it in a failure. `FUZZ_SEED` replays one.
 */
export function fixPropertySeedInCi(): void {
  if (process.env.FUZZ_SEED) fc.configureGlobal({ seed: Number(process.env.FUZZ_SEED) });
  else if (inCi() && !process.env.FUZZ_ROUNDS) fc.configureGlobal({ seed: CI_PROPERTY_SEED });
}

/** Runs an async property with one argument on the corpus, then on fresh seeds (see above). */
export async function fuzz<T>(
  name: string,
  property: (input: T) => Promise<void>,
  arbitrary: fc.Arbitrary<T>,
  options: FuzzOptions<T>,
): Promise<{ seeds: number[]; runs: number }> {
  const examples = (options.examples ?? []).map((e): [T] => [e]);
  const seeds = [...options.corpus, ...freshSeeds()];
  for (const [i, seed] of seeds.entries()) {
    const fresh = i >= options.corpus.length;
    if (fresh) process.stdout.write(`fuzz ${name}: fresh seed ${seed} (replay: FUZZ_SEED=${seed})\n`);
    try {
      await fc.assert(fc.asyncProperty(arbitrary, property), {
        numRuns: options.numRuns,
        seed,
        examples,
      });
    } catch (error) {
      throw new Error(`fuzz ${name} failed on ${fresh ? "fresh" : "corpus"} seed ${seed}: ${String(error)}`);
    }
  }
  return { seeds, runs: seeds.length * options.numRuns + examples.length };
}
