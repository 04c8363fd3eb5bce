import { badRequest } from "./status.ts";

/** A compiled label or field selector. */
export type Selector = (obj: KubeObjectLike) => boolean;

/** The part of an object selectors look at. */
export interface KubeObjectLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

/** Splits on commas that are not inside `in (a,b)` parentheses. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of selector) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** Parses a label selector: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`. */
export function parseLabelSelector(selector: string | null): Selector {
  if (!selector) return () => true;
  const checks = terms(selector).map((term): ((labels: Record<string, string>) => boolean) => {
    const set = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      const [, key = "", op, values = ""] = set;
      const allowed = values.split(",").map((v) => v.trim());
      return op === "in"
        ? (l) => key in l && allowed.includes(l[key] as string)
        : (l) => !(key in l) || !allowed.includes(l[key] as string);
    }
    const eq = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(term);
    if (eq) {
      const [, key = "", op, value] = eq;
      return op === "!=" ? (l) => l[key] !== value : (l) => l[key] === value;
    }
    if (/^![^\s!=]+$/.test(term)) return (l) => !(term.slice(1) in l);
    if (/^[^\s!=()]+$/.test(term)) return (l) => term in l;
    throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`);
  });
  return (obj) => checks.every((check) => check(obj.metadata?.labels ?? {}));
}

/** Parses a field selector; like most resources, only metadata.name and metadata.namespace are supported. */
export function parseFieldSelector(selector: string | null): Selector {
  if (!selector) return () => true;
  const checks = terms(selector).map((term): Selector => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    const field = m?.[1];
    if (!m || (field !== "metadata.name" && field !== "metadata.namespace")) {
      throw badRequest(`field label not supported: ${m?.[1] ?? term}`);
    }
    const value = m[3];
    const get = (o: KubeObjectLike) => (field === "metadata.name" ? o.metadata?.name : o.metadata?.namespace);
    return m[2] === "!=" ? (o) => get(o) !== value : (o) => get(o) === value;
  });
  return (obj) => checks.every((check) => check(obj));
}
