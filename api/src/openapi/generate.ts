import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApiDocument } from "./document.ts";

/**
 * Writes the committed OpenAPI document (docs/openapi.json) and the client types generated from it by
 * openapi-typescript (api/src/client/openapi-types.ts). With `--check` it writes nothing and exits 1 when
 * either file differs from what the routes produce now (`make check-generated`).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const DOCUMENT_FILE = path.join(root, "docs/openapi.json");
export const TYPES_FILE = path.join(root, "api/src/client/openapi-types.ts");

const HEADER = "// Generated from docs/openapi.json by `node api/src/openapi/generate.ts`: do not edit.\n\n";

/** The document and the client types as they should be committed. */
export async function renderGeneratedFiles(): Promise<{ document: string; types: string }> {
  const document = await buildOpenApiDocument();
  const types = astToString(await openapiTS(structuredClone(document) as never));
  return { document: `${JSON.stringify(document, null, 2)}\n`, types: HEADER + types };
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const wanted = await renderGeneratedFiles();
  const files: [string, string][] = [
    [DOCUMENT_FILE, wanted.document],
    [TYPES_FILE, wanted.types],
  ];
  let stale = 0;
  for (const [file, text] of files) {
    const current = await readFile(file, "utf8").catch(() => "");
    if (current === text) continue;
    if (check) {
      stale += 1;
      console.error(`${path.relative(root, file)} is out of date: run \`node api/src/openapi/generate.ts\``);
    } else {
      await writeFile(file, text);
      console.warn(`wrote ${path.relative(root, file)}`);
    }
  }
  if (stale > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
