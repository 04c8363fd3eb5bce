// Expand/contract across one release (ADR 0042): the statements of a migration that could break the previous
// release's code while it still runs beside the new one. Textual on purpose: a reviewer reads the same text.

export interface Contraction {
  /** The statement, comments removed and whitespace collapsed, lower case. */
  statement: string;
  /** Which rule it breaks, in words a reviewer can act on. */
  rule: string;
}

const RULES: Array<{ pattern: RegExp; rule: string }> = [
  {
    pattern: /^drop (table|view|materialized view|sequence|type|domain|schema)\b/,
    rule: "drops an object the previous release may read or write",
  },
  {
    pattern: /^drop (function|procedure|trigger)\b/,
    rule: "drops a function or trigger the previous release may call or rely on",
  },
  {
    pattern: /^alter table .*\bdrop column\b/,
    rule: "drops a column the previous release may read or write",
  },
  {
    pattern:
      /^alter table .*\bdrop (?!constraint\b|column\b|default\b|not\b|identity\b|expression\b)(?:if exists )?[a-z_"]+(\s*,|$)/,
    rule: "drops a column the previous release may read or write",
  },
  {
    pattern: /\brename (to|column|attribute)\b|\brename [a-z_"]+ to\b/,
    rule: "renames something the previous release refers to by its old name",
  },
  {
    pattern: /\balter column [a-z_"]+ (set data )?type\b/,
    rule: "changes a column's type under the previous release's reads and writes",
  },
  {
    pattern: /\balter column [a-z_"]+ drop default\b/,
    rule: "drops a default the previous release's inserts may rely on",
  },
  {
    pattern: /^alter type (?!.*\badd (value|attribute)\b)/,
    rule: "changes a type the previous release uses (only ADD VALUE and ADD ATTRIBUTE expand)",
  },
  { pattern: /^truncate\b/, rule: "empties a table the previous release reads" },
];

/** `set not null` breaks the previous release's inserts that omit the column, unless the column has a default. */
const SET_NOT_NULL = /\balter column ("?[a-z_]+"?) set not null\b/g;
/** `add column … not null` without a default: the previous release's inserts do not name the column. */
const ADD_NOT_NULL =
  /\badd (?:column )?(?:if not exists )?(?!(?:constraint|primary|unique|check|foreign|exclude|value|attribute)\b)("?[a-z_]+"?) ([^,]*)/g;

/**
 * The statements of a migration's up part, with comments dropped and the bodies of dollar-quoted and
 * single-quoted literals blanked (a function body's `drop` is not the migration's), split on `;`.
 */
export function statementsOf(sql: string): string[] {
  const up = sql.split(/^--\s*down migration\b/im)[0] ?? "";
  let text = "";
  for (let i = 0; i < up.length; ) {
    const rest = up.slice(i);
    const dollar = /^\$[a-zA-Z_]*\$/.exec(rest);
    if (dollar) {
      const end = up.indexOf(dollar[0], i + dollar[0].length);
      i = end < 0 ? up.length : end + dollar[0].length;
      text += " $body$ ";
    } else if (rest.startsWith("--")) {
      const end = up.indexOf("\n", i);
      i = end < 0 ? up.length : end;
    } else if (rest.startsWith("/*")) {
      const end = up.indexOf("*/", i + 2);
      i = end < 0 ? up.length : end + 2;
    } else if (rest.startsWith("'")) {
      const end = /^'(?:[^']|'')*'/.exec(rest)?.[0].length ?? rest.length;
      i += end;
      text += " 'literal' ";
    } else {
      text += up[i];
      i += 1;
    }
  }
  return text
    .split(";")
    .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
    .filter(Boolean);
}

/** The contracting statements of one migration file's text (empty when it only expands). */
export function findContractions(sql: string): Contraction[] {
  const statements = statementsOf(sql);
  const defaults = new Set(
    statements.flatMap((s) =>
      [...s.matchAll(/\balter column ("?[a-z_]+"?) set default\b/g)].map((m) => m[1]),
    ),
  );
  const found: Contraction[] = [];
  for (const statement of statements) {
    for (const { pattern, rule } of RULES) {
      if (pattern.test(statement)) found.push({ statement, rule });
    }
    for (const m of statement.matchAll(SET_NOT_NULL)) {
      if (!defaults.has(m[1] as string))
        found.push({ statement, rule: `sets ${m[1]} not null while it has no default` });
    }
    for (const m of statement.matchAll(ADD_NOT_NULL)) {
      const definition = m[2] ?? "";
      if (/\bnot null\b/.test(definition) && !/\b(default|generated)\b/.test(definition))
        found.push({ statement, rule: `adds ${m[1]} not null without a default` });
    }
  }
  return dedupe(found);
}

function dedupe(found: Contraction[]): Contraction[] {
  const seen = new Set<string>();
  return found.filter((c) => {
    const key = `${c.statement}\u0000${c.rule}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The SQL functions a file of core/sql/functions defines, as `name(argument types)`: the previous release
 * calls them by that signature, and migrate re-applies only the new files' bodies.
 */
export function functionSignatures(sql: string): string[] {
  const signatures: string[] = [];
  const pattern = /create (?:or replace )?function ([a-z_."]+) ?\(([^)]*)\)/g;
  for (const m of statementsOf(sql).join(";").matchAll(pattern)) {
    const args = (m[2] ?? "")
      .split(",")
      .map((a) =>
        a
          .replace(/\bdefault\b.*$/s, "")
          .replace(/=.*$/s, "")
          .trim(),
      )
      .filter(Boolean)
      // An argument is `[mode] [name] type`: the type is what the caller's signature is bound to.
      .map(
        (a) =>
          a
            .replace(/^(in|out|inout|variadic)\s+/, "")
            .split(/\s+/)
            .slice(-1)[0],
      );
    signatures.push(`${(m[1] ?? "").toLowerCase().replace(/"/g, "")}(${args.join(",")})`);
  }
  return signatures;
}
