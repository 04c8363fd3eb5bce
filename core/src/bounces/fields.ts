/**
 * The machine-readable parts of reports are header-style field groups (RFC 3464 §2.1, RFC 5965 §3.1): lines
 * `Name: value`, folded with leading white space, groups separated by an empty line. Names are
 * case-insensitive and a name may repeat (ARF's Original-Rcpt-To), so a group maps a lower-case name to
 * every value it carried.
 */
export type FieldGroup = Map<string, string[]>;

const MAX_GROUPS = 1000;

/** Splits a delivery-status or feedback-report body into its field groups, unfolded. */
export function parseFieldGroups(body: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let group: FieldGroup = new Map();
  let last: { name: string; index: number } | undefined;
  const close = () => {
    if (group.size > 0 && groups.length < MAX_GROUPS) groups.push(group);
    group = new Map();
    last = undefined;
  };
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() === "") {
      close();
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      const values = group.get(last.name) ?? [];
      values[last.index] = `${values[last.index] ?? ""} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const values = group.get(name) ?? [];
    values.push(line.slice(colon + 1).trim());
    group.set(name, values);
    last = { name, index: values.length - 1 };
  }
  close();
  return groups;
}

/** The first value of a field, or undefined. */
export function field(group: FieldGroup, name: string): string | undefined {
  return group.get(name)?.[0];
}

/**
 * A typed field's value without its type: `rfc822; user@example.com` → `user@example.com`,
 * `smtp; 550 5.1.1 unknown` → `550 5.1.1 unknown`. A value without a type is returned as is.
 */
export function untyped(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semi = value.indexOf(";");
  return (semi === -1 ? value : value.slice(semi + 1)).trim();
}

/** A bare, lower-cased address from `<a@b>`, `Name <a@b>` or `a@b`; undefined when there is none. */
export function bareAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const match = /<([^<>\s]+@[^<>\s]+)>/.exec(value) ?? /([^\s<>"';,]+@[^\s<>"';,]+)/.exec(value);
  return match?.[1]?.toLowerCase().replace(/\.$/, "");
}
