// Fills Node's on-disk compile cache (NODE_COMPILE_CACHE) for every module of the given directories and files,
// without running any of them. With the cache warm, a program never loads Node's TypeScript stripper (amaro, a
// WebAssembly module of ~20 MB resident) and skips parsing what it loads: the API starts ~20 MB smaller.
//
//   NODE_COMPILE_CACHE=<dir> node <the program's own V8 flags> scripts/image/warm-compile-cache.mjs <dir|file>...
//
// Node keys the cache by its version, the V8 flags and the uid, so run this as the user and with the exact
// flags the program will run with (the Dockerfile does, for each program of the chart); a cache made
// otherwise is simply not used. Plain JavaScript, so that warming needs no stripper of its own.
// How: one generated entry module imports every target after a module that throws. Node fetches, strips and
// compiles (and caches) the whole graph before it evaluates anything, and the throw stops the evaluation, so
// no program's top-level code runs.
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { flushCompileCache, getCompileCacheDir } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const MODULE = /\.(ts|js|mjs)$/;
const NOT_RUNTIME = /\.test\.ts$/;
const STOP = "compile-cache warm-up: compiled, not run";

async function modulesUnder(target) {
  if (!(await stat(target)).isDirectory()) return [path.resolve(target)];
  const entries = await readdir(target, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && MODULE.test(e.name) && !NOT_RUNTIME.test(e.name))
    .filter((e) => !e.parentPath.split(path.sep).includes("node_modules"))
    .map((e) => path.resolve(e.parentPath, e.name));
}

const targets = process.argv.slice(2);
const directory = getCompileCacheDir();
if (!directory || targets.length === 0) {
  process.stderr.write("usage: NODE_COMPILE_CACHE=<dir> node [flags] warm-compile-cache.mjs <dir|file>...\n");
  process.exit(2);
}
const files = (await Promise.all(targets.map(modulesUnder))).flat().sort();
const work = await mkdtemp(path.join(os.tmpdir(), "compile-cache-warm-"));
try {
  const stop = path.join(work, "stop.mjs");
  await writeFile(stop, `throw new Error(${JSON.stringify(STOP)});\n`);
  const entry = path.join(work, "entry.mjs");
  const imports = [stop, ...files].map((file) => `import ${JSON.stringify(pathToFileURL(file).href)};`);
  await writeFile(entry, `${imports.join("\n")}\n`);
  const error = await import(pathToFileURL(entry).href).then(
    () => new Error("the warm-up entry ran to its end"),
    (thrown) => thrown,
  );
  // Anything but our own stop means a module failed to resolve, strip or link: the image would fail too.
  if (error?.message !== STOP) throw error;
  flushCompileCache();
  process.stdout.write(`compile cache ${directory}: ${files.length} modules and their imports\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
