import { MailroomError } from "../errors/index.ts";
import { type CompiledPart, compilePart, located } from "./compile.ts";
import { checkDeclaredExamples } from "./examples.ts";
import {
  MAX_BODY_SOURCE_LENGTH,
  MAX_SUBJECT_SOURCE_LENGTH,
  TEMPLATE_PARTS,
  type TemplateContent,
  type TemplatePart,
} from "./types.ts";
import { checkVariablesSchema, validateVariables } from "./variables.ts";

/** The rendered parts of a template; a body part is absent when the template has none. */
export interface RenderedParts {
  subject: string;
  html?: string;
  text?: string;
}

/**
 * RFC 5322 caps a header line at 998 characters; a subject with no whitespace goes alone on a continuation
 * line after one space, so it may have 997 (the same bound as a sent subject, MAX_SUBJECT_LENGTH in emails).
 */
export const MAX_RENDERED_SUBJECT_LENGTH = 997;

// Explicit although they are Handlebars' defaults since 4.6: a template must never reach a prototype, so
// `{{constructor}}` or `{{__proto__}}` resolve to nothing.
const RUNTIME_OPTIONS = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

// biome-ignore lint/suspicious/noControlCharactersInRegex: CR, LF or NUL in a subject would inject headers
const HEADER_BREAK = /[\r\n\u0000]/;

const invalid = (message: string) => new MailroomError("validation_error", message);

function sourcesOf(content: TemplateContent): [TemplatePart, string][] {
  return TEMPLATE_PARTS.flatMap((part) => {
    const source = content[part];
    return source === null ? [] : [[part, source] as [TemplatePart, string]];
  });
}

/**
 * Checks a template's content before it is stored: sizes, Handlebars syntax and rules of every part, and the
 * variables schema. Throws `validation_error` naming the part, line and column of the first problem.
 */
export function checkTemplateContent(content: TemplateContent): void {
  if (content.html === null && content.text === null) throw invalid("html: give html, text or both");
  if (content.subject.length > MAX_SUBJECT_SOURCE_LENGTH) {
    throw invalid(`subject: at most ${MAX_SUBJECT_SOURCE_LENGTH} characters`);
  }
  for (const [part, source] of sourcesOf(content)) {
    if (source.length > MAX_BODY_SOURCE_LENGTH)
      throw invalid(`${part}: at most ${MAX_BODY_SOURCE_LENGTH} characters`);
    compilePart(part, source);
  }
  if (content.variables) {
    checkVariablesSchema(content.variables);
    checkDeclaredExamples(content.variables);
  }
}

function isPresent(variables: Record<string, unknown>, parts: readonly string[]): boolean {
  let value: unknown = variables;
  for (const part of parts) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, part)) return false;
    value = (value as Record<string, unknown>)[part];
  }
  return true;
}

/** Every variable read unconditionally at the top level of some part and absent, so all are named at once. */
function missingRootVariables(
  compiled: [TemplatePart, CompiledPart][],
  variables: Record<string, unknown>,
): string[] {
  const missing: string[] = [];
  for (const [part, { rootVariables }] of compiled) {
    for (const variable of rootVariables) {
      if (!isPresent(variables, variable.parts)) {
        missing.push(`${variable.path} (${part} line ${variable.line}, column ${variable.column + 1})`);
      }
    }
  }
  return missing;
}

function renderError(part: TemplatePart, compiled: CompiledPart, error: unknown): MailroomError {
  const {
    message = String(error),
    lineNumber,
    column,
  } = error as {
    message?: string;
    lineNumber?: number;
    column?: number;
  };
  const detail = message.replace(/ - \d+:\d+$/, "");
  const notDefined = /^"(.*)" not defined in /.exec(detail);
  if (typeof lineNumber === "number" && typeof column === "number") {
    // Strict mode names only the last segment of a path; the source text at that position names all of it.
    const text = notDefined
      ? `missing variable ${compiled.pathsAt.get(`${lineNumber}:${column}`) ?? notDefined[1]}`
      : detail;
    return new MailroomError("template_render_error", located(part, lineNumber, column, text), {
      cause: error,
    });
  }
  return new MailroomError("template_render_error", `${part}: ${detail}`, { cause: error });
}

function compileStored(part: TemplatePart, source: string): CompiledPart {
  try {
    return compilePart(part, source);
  } catch (error) {
    // Checked when saved; a stored template that no longer compiles fails the render, not the request shape.
    if (error instanceof MailroomError)
      throw new MailroomError("template_render_error", error.message, { cause: error });
    throw error;
  }
}

/**
 * Renders a template's content with variables: the variables are validated against the content's JSON
 * Schema, then every part is rendered in Handlebars strict mode (HTML-escaped in `html`, raw in `subject` and
 * `text`). Throws `template_render_error` naming the missing or invalid variables, or when the rendered
 * subject would break its header line.
 */
export function renderContent(content: TemplateContent, variables: Record<string, unknown>): RenderedParts {
  validateVariables(content.variables, variables);
  const compiled = sourcesOf(content).map(([part, source]): [TemplatePart, CompiledPart] => [
    part,
    compileStored(part, source),
  ]);
  const missing = missingRootVariables(compiled, variables);
  if (missing.length > 0) {
    throw new MailroomError("template_render_error", `Missing template variables: ${missing.join(", ")}`);
  }
  const rendered: Partial<Record<TemplatePart, string>> = {};
  for (const [part, entry] of compiled) {
    try {
      rendered[part] = entry.render(variables, RUNTIME_OPTIONS);
    } catch (error) {
      throw renderError(part, entry, error);
    }
  }
  const subject = rendered.subject ?? "";
  if (HEADER_BREAK.test(subject)) {
    throw new MailroomError("template_render_error", "subject: the rendered subject contains CR, LF or NUL");
  }
  if (subject.length > MAX_RENDERED_SUBJECT_LENGTH) {
    throw new MailroomError(
      "template_render_error",
      `subject: the rendered subject is longer than ${MAX_RENDERED_SUBJECT_LENGTH} characters`,
    );
  }
  return {
    subject,
    ...(rendered.html === undefined ? {} : { html: rendered.html }),
    ...(rendered.text === undefined ? {} : { text: rendered.text }),
  };
}
