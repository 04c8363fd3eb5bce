/**
 * Event and audit details as readable text rather than JSON (issue 33 item 5): `Key name: value` lines, lists
 * of plain values joined, nested objects and lists of objects indented beneath their key.
 */
export function readableDetail(detail: Record<string, unknown>): string {
  return linesOf(detail, "").join("\n");
}

/** `smtpResponse` → `Smtp response`, `failed_emails` → `Failed emails`. */
function label(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function linesOf(value: Record<string, unknown>, indent: string): string[] {
  return Object.entries(value).flatMap(([key, v]) => {
    const head = `${indent}${label(key)}:`;
    if (v === null || v === undefined || v === "") return [`${head} —`];
    if (isRecord(v)) return [head, ...linesOf(v, `${indent}  `)];
    if (Array.isArray(v)) {
      if (!v.some((item) => isRecord(item) || Array.isArray(item)))
        return [`${head} ${v.join(", ") || "none"}`];
      return [
        head,
        ...v.flatMap((item) => {
          const [first = "", ...rest] = isRecord(item)
            ? linesOf(item, `${indent}    `)
            : [`${indent}    ${String(item)}`];
          return [`${indent}  - ${first.trimStart()}`, ...rest];
        }),
      ];
    }
    return [`${head} ${String(v)}`];
  });
}
