import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance, FastifyReply } from "fastify";
import { sendError } from "./errors.ts";

/**
 * The console's CSP. Scripts only from this origin (no inline script, no eval). Styles allow 'unsafe-inline'
 * because a srcdoc frame inherits this policy and email HTML carries its own `<style>`; the console itself
 * never writes markup from data. Images may be remote only so that the email frame's "load remote images"
 * toggle can work: the frame's own, stricter policy blocks them until then. No framing by anyone else.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // No name an email links to is resolved ahead of a click (issue 26).
  "x-dns-prefetch-control": "off",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
  "cache-control": "no-cache",
};

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ts": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Reads the console workspace's files once. TypeScript modules are served as JavaScript with their types
 * stripped by amaro (the stripper Node itself uses to run our .ts), keeping positions so errors point at the
 * source line: no build step, no artefact to keep in sync (ADR 0001, ADR 0016). amaro is a WebAssembly
 * module of about 20 MB resident, so it is loaded here, on the first console request, not by every API
 * process that never serves one.
 */
async function loadConsoleAssets(root: string): Promise<Map<string, Asset>> {
  const { transformSync } = await import("amaro");
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".test.ts")) continue;
    const type = TYPES[path.extname(entry.name)];
    if (!type) continue;
    const file = path.join(entry.parentPath, entry.name);
    let body = readFileSync(file);
    if (file.endsWith(".ts"))
      body = Buffer.from(transformSync(body.toString("utf8"), { mode: "strip-only" }).code);
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    assets.set(path.relative(root, file).split(path.sep).join("/"), { body, type, etag });
  }
  return assets;
}

let loaded: Promise<Map<string, Asset>> | undefined;

/** The console workspace's files, loaded on first use: every app built in a process serves the same ones. */
export function consoleAssets(): Promise<Map<string, Asset>> {
  loaded ??= loadConsoleAssets(
    path.dirname(fileURLToPath(import.meta.resolve("@mailroom/console/index.html"))),
  );
  return loaded;
}

/** Whether an Accept header names HTML itself (browsers' does; `*\/*` or JSON, as API clients send, does not). */
function acceptsHtml(accept: string | undefined): boolean {
  return (accept ?? "")
    .split(",")
    .map((range) => range.trim().toLowerCase().split(";"))
    .some(
      ([type, ...params]) =>
        type?.trim() === "text/html" && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p)),
    );
}

/**
 * The web console at `/console/`: static files from memory, with a strict CSP and clickjacking protection on
 * each. The console talks to the public API like any other client, so it needs no route of its own, and no
 * key: the files hold nothing secret. Unknown paths answer the usual 404 body.
 */
export function registerConsole(app: FastifyInstance, assets: () => Promise<Map<string, Asset>>): void {
  const serve = async (reply: FastifyReply, name: string, ifNoneMatch: string | undefined) => {
    const asset = (await assets()).get(name);
    reply.headers(SECURITY_HEADERS);
    if (!asset) return sendError(reply, new MailroomError("not_found", `No console file ${name}.`));
    reply.header("etag", asset.etag).type(asset.type);
    if (ifNoneMatch === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  };
  app.get("/console", { schema: { hide: true } }, (_request, reply) => reply.redirect("/console/", 301));
  // A person who opens the API's address in a browser wants the console; an API client asking for `/` gets
  // the usual JSON 404 (its Accept names no HTML).
  app.get("/", { schema: { hide: true } }, (request, reply) => {
    if (acceptsHtml(request.headers.accept)) {
      return reply.redirect("/console/", 302);
    }
    return sendError(reply, new MailroomError("not_found", "No route GET /."));
  });
  app.get("/console/", { schema: { hide: true } }, (request, reply) =>
    serve(reply, "index.html", request.headers["if-none-match"]),
  );
  app.get<{ Params: { "*": string } }>("/console/*", { schema: { hide: true } }, (request, reply) =>
    serve(reply, request.params["*"], request.headers["if-none-match"]),
  );
}
