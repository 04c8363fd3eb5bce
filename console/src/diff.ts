/** A line diff for the console's comparisons (template versions): small, no dependency. */

// Past this many lines a side, the quadratic table would cost more than the comparison is worth.
const MAX_DIFF_LINES = 2000;

/** Lines of `a` and `b` as a unified diff: each line kept, removed (`-`) or added (`+`), by longest common subsequence. */
export function diffLines(a: string[], b: string[]): Array<[" " | "-" | "+", string]> {
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) {
    return [...a.map((l): ["-", string] => ["-", l]), ...b.map((l): ["+", string] => ["+", l])];
  }
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const out: Array<[" " | "-" | "+", string]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([" ", a[i] ?? ""]);
      i += 1;
      j += 1;
    } else if (
      i < a.length &&
      (j >= b.length || (lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0))
    ) {
      // Removals before additions where both keep the common part as long, as unified diffs show them.
      out.push(["-", a[i] ?? ""]);
      i += 1;
    } else {
      out.push(["+", b[j] ?? ""]);
      j += 1;
    }
  }
  return out;
}
