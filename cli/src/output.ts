/** Progress and notes go to stderr so stdout carries only results (a key, a table, JSON). */
export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function step(line: string): void {
  process.stderr.write(`› ${line}\n`);
}

/** Prints a fixed-width table of rows to stdout. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[line(headers), ...rows.map(line)].join("\n")}\n`);
}
