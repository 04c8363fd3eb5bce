/**
 * Runs the chart's Argo CD health script (charts/mailroom/files/argocd/health.lua) on an object with Debian's
 * lua5.1 (Argo CD runs gopher-lua, a Lua 5.1), in an environment holding only `obj` and the base functions and
 * libraries Argo CD's sandbox opens, so a script that reaches for io or os fails here too.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { CHART_DIR } from "./helm.ts";

const run = promisify(execFile);
export const HEALTH_SCRIPT = path.join(CHART_DIR, "files/argocd/health.lua");
export const LUA = "lua5.1";

/** A Lua 5.1 string literal: printable ASCII as is, every other byte as a decimal escape. */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += byte >= 0x20 && byte < 0x7f && ch !== '"' && ch !== "\\" ? ch : `\\${byte}`;
  }
  return `${out}"`;
}

/** A JSON value as a Lua table constructor, as Argo CD hands the object over (null fields are absent). */
export function toLua(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return luaString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(", ")}}`;
  const fields = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `[${luaString(k)}] = ${toLua(v)}`);
  return `{${fields.join(", ")}}`;
}

const RUNNER = `
local chunk = assert(loadfile(SCRIPT))
setfenv(chunk, { obj = OBJ, ipairs = ipairs, pairs = pairs, next = next, type = type, tostring = tostring,
  tonumber = tonumber, string = string, table = table, math = math })
local hs = chunk()
io.write(tostring(hs.status), "\\n", tostring(hs.message))
`;

export interface Health {
  status: string;
  message: string;
}

/** Whether lua5.1 is here; on CI (root) its absence is a failure, elsewhere the tests skip and say why. */
export async function luaAvailable(): Promise<boolean> {
  try {
    await run(LUA, ["-v"]);
    return true;
  } catch {
    if (process.getuid?.() === 0)
      throw new Error("lua5.1 is missing: run scripts/install-system-packages.sh");
    console.warn(
      "skipping the Argo CD health script checks: lua5.1 is not installed (apt-get install lua5.1)",
    );
    return false;
  }
}

/** The script's verdict on `object`. */
export async function argoHealth(object: unknown): Promise<Health> {
  const program = `SCRIPT = ${luaString(HEALTH_SCRIPT)}\nOBJ = ${toLua(object)}\n${RUNNER}`;
  const { stdout } = await run(LUA, ["-e", program]);
  const [status = "", ...message] = stdout.split("\n");
  return { status, message: message.join("\n") };
}
