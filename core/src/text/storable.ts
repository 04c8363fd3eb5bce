/**
 * Strings Postgres cannot store (`text` and `jsonb` refuse U+0000) or that are not well-formed Unicode (a lone
 * UTF-16 surrogate, which JSON's `\ud800` escape can carry): refused wherever input enters, so no such value
 * reaches a statement and turns into a 500 (issue 26).
 */
export interface UnstorableString {
  /** Where the value sits: object keys and array indexes from the root. */
  path: (string | number)[];
  problem: string;
}

function problemOf(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL (U+0000)";
  if (!text.isWellFormed()) return "holds a lone surrogate (invalid UTF-16)";
  return undefined;
}

/**
 * The first string in `value` (itself, an array item, an object's key or value, at any depth) that cannot be
 * stored, or undefined. It allocates only on a find (it runs on every request); recursion is bounded by the
 * value's depth, which the API's body parser bounds first.
 */
export function findUnstorableString(value: unknown): UnstorableString | undefined {
  if (typeof value === "string") {
    const problem = problemOf(value);
    return problem ? { path: [], problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableString(value[i]);
      if (found) return { path: [i, ...found.path], problem: found.problem };
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const keyProblem = problemOf(key);
      if (keyProblem) return { path: [], problem: `a field name ${keyProblem}` };
      const found = findUnstorableString(record[key]);
      if (found) return { path: [key, ...found.path], problem: found.problem };
    }
  }
  return undefined;
}
