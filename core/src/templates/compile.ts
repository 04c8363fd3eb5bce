import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type Handlebars from "handlebars";
import { MailroomError } from "../errors/index.ts";
import { HELPER_NAMES, TEMPLATE_HELPERS } from "./helpers.ts";
import type { TemplatePart } from "./types.ts";

type HandlebarsEnv = typeof Handlebars;

// Loaded on use (synchronously, as compilePart is): the API imports this module for every send, but only
// template routes and templated sends compile one, and Handlebars with its source-map dependency is ~45
// modules and ~2 MB of a process's memory.
const require = createRequire(import.meta.url);
let handlebarsEnv: HandlebarsEnv | undefined;

// An isolated environment: helpers registered here are the only ones templates can reach. `lookup` (dynamic
// property access) and `log` (writes to the console) are removed; partials and decorators are refused below.
function env(): HandlebarsEnv {
  if (handlebarsEnv) return handlebarsEnv;
  const created = (require("handlebars") as HandlebarsEnv).create();
  created.unregisterHelper("lookup");
  created.unregisterHelper("log");
  for (const [name, helper] of Object.entries(TEMPLATE_HELPERS)) created.registerHelper(name, helper);
  // Handlebars reports a denied prototype access with console.error, outside our JSON logs. Denial is the
  // intended outcome, so the warning is silenced: a level above ERROR logs nothing.
  created.logger.level = created.logger.ERROR + 1;
  handlebarsEnv = created;
  return created;
}

const BLOCK_HELPERS = new Set(["if", "unless", "each", "with"]);
// Names Handlebars' runtime gives a meaning of its own (its fallbacks for unknown names, and the built-ins
// removed above): a template naming one compiles, then fails every render with an internal message.
const RESERVED = new Set(["helperMissing", "blockHelperMissing", "log", "lookup"]);
const HELPERS = new Set([...BLOCK_HELPERS, ...HELPER_NAMES]);
const KNOWN_HELPERS: Record<string, boolean> = { lookup: false, log: false };
for (const name of HELPERS) KNOWN_HELPERS[name] = true;

/** A variable a template reads unconditionally at its top level: missing it always fails the render. */
export interface RootVariable {
  path: string;
  parts: string[];
  line: number;
  column: number;
}

export interface CompiledPart {
  render: HandlebarsTemplateDelegate;
  rootVariables: RootVariable[];
  /** The source text of each path expression, by `line:column` (0-based column) of its start. */
  pathsAt: Map<string, string>;
}

/** `html line 3, column 9: …` — columns are 1-based, as editors show them. */
export function located(part: TemplatePart, line: number, column: number, detail: string): string {
  return `${part} line ${line}, column ${column + 1}: ${detail}`;
}

interface ParserState {
  Parser: {
    lexer: { yylloc?: { first_line: number; first_column: number; last_line: number; last_column: number } };
  };
}

function syntaxError(part: TemplatePart, error: unknown): MailroomError {
  const message = error instanceof Error ? error.message : String(error);
  // Compiler errors carry their position; jison's parse errors do not, but parsing is synchronous, so the
  // shared lexer still holds the location of the token it stopped at.
  const handlebarsError = error as { lineNumber?: number; column?: number };
  if (typeof handlebarsError.lineNumber === "number" && typeof handlebarsError.column === "number") {
    const unknownHelper = /unknown helper (\S+)/.exec(message)?.[1];
    const detail = unknownHelper
      ? `unknown helper ${unknownHelper} (helpers: ${[...HELPERS].join(", ")})`
      : message.replace(/ - \d+:\d+$/, "");
    return new MailroomError(
      "validation_error",
      located(part, handlebarsError.lineNumber, handlebarsError.column, detail),
      { cause: error },
    );
  }
  const loc = (env() as unknown as ParserState).Parser.lexer.yylloc;
  const lexical = message.startsWith("Lexical error");
  const line = (lexical ? loc?.last_line : loc?.first_line) ?? 1;
  const column = (lexical ? loc?.last_column : loc?.first_column) ?? 0;
  const got = /got '([^']*)'$/.exec(message)?.[1];
  const detail = lexical
    ? "syntax error: unrecognized text"
    : got === "EOF"
      ? "syntax error: the template ends inside an expression or block"
      : got === "INVALID"
        ? "syntax error: unexpected text inside {{…}}"
        : `syntax error: unexpected ${got ?? "token"}`;
  return new MailroomError("validation_error", located(part, line, column, detail), { cause: error });
}

/** The AST fields this module reads, over every node type (Handlebars' own types are per node type). */
interface AnyNode {
  type: string;
  loc: hbs.AST.SourceLocation;
  path?: AnyNode;
  params?: AnyNode[];
  hash?: AnyNode;
  pairs?: { value: AnyNode }[];
  program?: AnyNode;
  inverse?: AnyNode;
  body?: AnyNode[];
  escaped?: boolean;
  original?: unknown;
  parts?: string[];
  data?: boolean;
}

/** Calls `visit` on every node of a tree, parents before children. */
function walk(node: AnyNode | undefined, visit: (node: AnyNode) => void): void {
  if (!node || typeof node !== "object") return;
  visit(node);
  for (const child of [node.path, ...(node.params ?? []), node.hash, node.program, node.inverse])
    walk(child, visit);
  for (const pair of node.pairs ?? []) walk(pair.value, visit);
  for (const statement of node.body ?? []) walk(statement, visit);
}

/** Refuses what the runtime would only discover later, or what would defeat escaping. */
function checkTree(part: TemplatePart, program: hbs.AST.Program): void {
  const refuse = (node: AnyNode, detail: string) => {
    throw new MailroomError(
      "validation_error",
      located(part, node.loc.start.line, node.loc.start.column, detail),
    );
  };
  walk(program as AnyNode, (node) => {
    switch (node.type) {
      case "PartialStatement":
      case "PartialBlockStatement":
        return refuse(node, "partials are not supported");
      case "Decorator":
      case "DecoratorBlock":
        return refuse(node, "decorators are not supported");
      case "PathExpression": {
        // `this.log` and `../lookup` read a variable of that name, which is fine.
        const name = node.parts?.[0] ?? "";
        if (!node.data && !/^(this\b|\.)/.test(String(node.original)) && RESERVED.has(name)) {
          refuse(node, `${name} is reserved by Handlebars (helpers: ${[...HELPERS].join(", ")})`);
        }
        return;
      }
      case "MustacheStatement":
      case "SubExpression": {
        if (part === "html" && node.type === "MustacheStatement" && node.escaped === false) {
          refuse(node, "{{{…}}} and {{&…}} would insert a value unescaped into html; use {{…}}");
        }
        const name = String(node.path?.original ?? "");
        if (BLOCK_HELPERS.has(name))
          refuse(node, `${name} is a block helper: write {{#${name} value}}…{{/${name}}}`);
        return;
      }
      case "BlockStatement": {
        const name = String(node.path?.original ?? "");
        if (BLOCK_HELPERS.has(name) && node.params?.length !== 1)
          refuse(node, `#${name} takes exactly one value`);
        return;
      }
    }
  });
}

function collectPaths(program: hbs.AST.Program): {
  rootVariables: RootVariable[];
  pathsAt: Map<string, string>;
} {
  const pathsAt = new Map<string, string>();
  walk(program as AnyNode, (node) => {
    if (node.type === "PathExpression")
      pathsAt.set(`${node.loc.start.line}:${node.loc.start.column}`, String(node.original));
  });
  // Only plain `{{a.b}}` at the top level: anything inside a block may never render, so only the runtime
  // can tell whether it was needed.
  const rootVariables: RootVariable[] = [];
  for (const statement of program.body) {
    if (statement.type !== "MustacheStatement") continue;
    const mustache = statement as hbs.AST.MustacheStatement;
    if (mustache.params.length > 0 || mustache.hash || mustache.path.type !== "PathExpression") continue;
    const path = mustache.path as hbs.AST.PathExpression;
    if (path.data || path.depth > 0 || path.parts.length === 0) continue;
    if (path.parts.length === 1 && HELPERS.has(path.parts[0] ?? "")) continue;
    rootVariables.push({
      path: path.parts.join("."),
      parts: path.parts,
      line: path.loc.start.line,
      column: path.loc.start.column,
    });
  }
  return { rootVariables, pathsAt };
}

const CACHE_LIMIT = 1000;
// Compiled parts by hash of (part kind, source). Versions are immutable, so an entry never goes stale; the
// bound keeps memory flat when many templates are in use (oldest entry out first).
const cache = new Map<string, CompiledPart>();

/**
 * Parses, checks and compiles one part of a template: Handlebars strict mode, only the known helpers,
 * values HTML-escaped in `html` and raw in `subject` and `text`. Throws `validation_error` naming the part,
 * line and column of the first problem.
 */
export function compilePart(part: TemplatePart, source: string): CompiledPart {
  const key = createHash("sha256")
    .update(part === "html" ? "html\0" : "raw\0")
    .update(source)
    .digest("base64");
  const cached = cache.get(key);
  if (cached) return cached;
  let program: hbs.AST.Program;
  try {
    program = env().parse(source);
  } catch (error) {
    throw syntaxError(part, error);
  }
  checkTree(part, program);
  const options = {
    strict: true,
    knownHelpersOnly: true,
    knownHelpers: KNOWN_HELPERS,
    noEscape: part !== "html",
  };
  try {
    // Compiles eagerly: unknown helpers and mismatched blocks are reported now, not at the first send.
    env().precompile(program, options);
  } catch (error) {
    throw syntaxError(part, error);
  }
  // Compiled from the source again: the compiler annotates the AST it is given, so it is not reused.
  const compiled: CompiledPart = { render: env().compile(source, options), ...collectPaths(program) };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}
