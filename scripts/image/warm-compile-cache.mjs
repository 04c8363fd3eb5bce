// Fills Node's on-disk compile cache (NODE_COMPILE_CACHE) for every module of the given directories and files,
// without running any of them. With the cache warm, a program never loads Node's TypeScript stripper (amaro, a
// WebAssembly module of ~20 MB resident) and skips parsing what it loads: the API starts ~20 MB smaller.
//
//   NODE_COMPILE_CACHE=<dir> node <the program's own V8 flags> scripts/image/warm-compile-cache.mjs <dir|file>...
//
// Node keys the cache by its version, the V8 flags and the uid, so run this as the user and with the exact
// flags the program will run with (the Dockerfile does, for each program of the chart); a cache made
// otherwise is simply not used. Plain JavaScript, so that warming needs no stripper of its own.
// How: each target gets a generated entry module that imports, first, a module that throws, then the target.
// Node fetches, strips and compiles (and caches) an entry's whole graph before it evaluates anything, and the
// throw stops the evaluation, so no program's top-level code runs. A target that imports a package the image
// does not install (the typed API client of the tests) is reported and skipped; any other failure fails.
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
  const outcomes = await Promise.all(
    files.map(async (file, n) => {
      const entry = path.join(work, `entry-${n}.mjs`);
      const imports = [stop, file].map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};`);
      await writeFile(entry, `${imports.join("\n")}\n`);
      return import(pathToFileURL(entry).href).then(
        () => new Error(`${file}: the warm-up entry ran to its end`),
        (thrown) => thrown,
      );
    }),
  );
  const skipped = files.filter((_, n) => outcomes[n]?.code === "ERR_MODULE_NOT_FOUND");
  const failed = outcomes.filter((e) => e?.message !== STOP && e?.code !== "ERR_MODULE_NOT_FOUND");
  // Anything else means a module failed to strip or link: the program would fail to start as well.
  if (failed.length > 0) throw failed[0];
  for (const file of skipped) process.stdout.write(`not warmed (imports a package not installed): ${file}\n`);
  flushCompileCache();
  process.stdout.write(
    `compile cache ${directory}: ${files.length - skipped.length} modules and their imports\n`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
