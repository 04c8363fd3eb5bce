import type { HelperOptions } from "handlebars";

/**
 * The only helpers a template may call, besides Handlebars' `if`, `unless`, `each` and `with`. Each is a
 * pure function of its arguments: no I/O, no access to anything but the values passed in. Their results are
 * plain strings or booleans, so Handlebars still HTML-escapes them in `html`.
 *
 * - `{{eq a b}}`: true when `a === b`, for `{{#if (eq status "paid")}}`.
 * - `{{uppercase s}}`, `{{lowercase s}}`: case mapping of a value's string form.
 * - `{{default value "fallback"}}`: `value` unless it is missing, null or the empty string.
 * - `{{formatDate value "long" locale="fr-FR" timeZone="Europe/Paris" time="short"}}`: a date (ISO string,
 *   epoch milliseconds) formatted with Intl; style `short|medium|long|full` (default `medium`) or `iso`.
 *   Locale defaults to `en-US`, time zone to `UTC`, so the output does not depend on the server.
 */
export const TEMPLATE_HELPERS = {
  eq: (...args: unknown[]) => {
    const [a, b] = valuesOf("eq", args, 2, 2);
    return a === b;
  },
  uppercase: (...args: unknown[]) => stringOf(valuesOf("uppercase", args, 1, 1)[0]).toUpperCase(),
  lowercase: (...args: unknown[]) => stringOf(valuesOf("lowercase", args, 1, 1)[0]).toLowerCase(),
  default: (...args: unknown[]) => {
    const [value, fallback] = valuesOf("default", args, 2, 2);
    return value === undefined || value === null || value === "" ? fallback : value;
  },
  formatDate: (...args: unknown[]) => {
    const [value, style = "medium"] = valuesOf("formatDate", args, 1, 2);
    const hash = (args.at(-1) as HelperOptions).hash as Record<string, unknown>;
    return formatDate(value, style, hash);
  },
} as const;

export const HELPER_NAMES = Object.keys(TEMPLATE_HELPERS);

const DATE_STYLES = new Set(["short", "medium", "long", "full"]);

/** Handlebars passes its options object last; the values come before it. Checks their count. */
function valuesOf(name: string, args: unknown[], min: number, max: number): unknown[] {
  const values = args.slice(0, -1);
  if (values.length < min || values.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw new Error(`${name} takes ${expected} argument${max === 1 ? "" : "s"}, got ${values.length}`);
  }
  return values;
}

function stringOf(value: unknown): string {
  return value === undefined || value === null ? "" : String(value);
}

function formatDate(value: unknown, style: unknown, hash: Record<string, unknown>): string {
  if (typeof value !== "string" && typeof value !== "number" && !(value instanceof Date)) {
    throw new Error("formatDate takes an ISO 8601 string or epoch milliseconds");
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`formatDate: ${JSON.stringify(value)} is not a date`);
  if (style === "iso") return date.toISOString();
  if (typeof style !== "string" || !DATE_STYLES.has(style)) {
    throw new Error("formatDate style must be short, medium, long, full or iso");
  }
  const { locale = "en-US", timeZone = "UTC", time } = hash;
  if (typeof locale !== "string" || typeof timeZone !== "string") {
    throw new Error("formatDate locale and timeZone must be strings");
  }
  if (time !== undefined && (typeof time !== "string" || !DATE_STYLES.has(time))) {
    throw new Error("formatDate time must be short, medium, long or full");
  }
  // Intl throws a RangeError naming the bad locale or time zone; the renderer reports it.
  return new Intl.DateTimeFormat(locale, {
    dateStyle: style as Intl.DateTimeFormatOptions["dateStyle"],
    ...(time ? { timeStyle: time as Intl.DateTimeFormatOptions["timeStyle"] } : {}),
    timeZone,
  }).format(date);
}
