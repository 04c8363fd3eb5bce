/** Columns padded like kubectl's own tables: upper-case headers, two spaces between columns. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join("\n")}\n`;
}

/** A condition of a resource's status. */
export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export function conditionOf(object: { status?: unknown }, type: string): ConditionView | undefined {
  const conditions = (object.status as { conditions?: ConditionView[] } | undefined)?.conditions;
  return conditions?.find((c) => c.type === type);
}
