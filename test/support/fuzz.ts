import fc from "fast-check";

/**
 * How every property (fuzz) suite runs, so that no seed can turn CI red unnoticed and every failure found can
 * be replayed: first a fixed corpus of seeds (the same inputs on every run), then one fresh seed, printed
 * before it runs and named in the failure. `FUZZ_SEED=<n>` replays a printed seed; `FUZZ_ROUNDS=<n>` draws
 * that many fresh seeds (to hunt for failures locally). A counterexample a run finds is kept in the suite's
 * list of fixed cases, which run on every seed.
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
  const rounds = Math.max(1, Number(process.env.FUZZ_ROUNDS ?? 1));
  return Array.from({ length: rounds }, () => (Math.random() * 2 ** 31) | 0);
};

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
