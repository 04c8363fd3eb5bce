import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import type { EnvInput } from "./config.ts";

/**
 * The variables of `<dir>/.env` (Node's own dotenv parser), under the real environment: a variable set to a
 * non-empty value in the environment wins over the file, so a deployment can always override a checked-out
 * `.env`. No file: the environment as it is. `file` names the file read, for error messages.
 */
export function withDotenv(env: EnvInput, dir: string): { env: EnvInput; file?: string } {
  const file = path.join(dir, ".env");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { env };
    throw error;
  }
  const fromFile = parseEnv(text) as EnvInput;
  const merged: EnvInput = { ...fromFile };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value !== "") merged[name] = value;
  }
  return { env: merged, file };
}
