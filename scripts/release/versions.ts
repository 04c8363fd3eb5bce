/**
 * What a release's version is: one string, written in every place that names it (docs/releasing.md): the root
 * and workspace package.json files (the CLI's is what `mailroom --version` prints and what the image is tagged
 * with), their entries in package-lock.json, and the chart's `version`, `appVersion` and Artifact Hub image line.
 *
 *   node scripts/release/versions.ts check [x.y.z]   # exit 1 naming each place that disagrees
 *   node scripts/release/versions.ts bump x.y.z      # write x.y.z everywhere (scripts/release/cut.sh runs it)
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const WORKSPACES = ["core", "api", "worker", "operator", "smtp", "console", "cli"];
const CHART = "charts/mailroom/Chart.yaml";
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/;
const IMAGE_LINE = /^( {6}image: [^\s:]+(?::\d+)?\/[^\s:]+:)(\S+)$/m;

export function isVersion(v: string): boolean {
  return SEMVER.test(v);
}

/** Every place that names the version, with the version it names there. */
export function versionPlaces(root = ROOT): { place: string; version: string | undefined }[] {
  const json = (file: string) => JSON.parse(readFileSync(path.join(root, file), "utf8"));
  const places: { place: string; version: string | undefined }[] = [];
  places.push({ place: "package.json", version: json("package.json").version });
  const lock = json("package-lock.json");
  places.push({ place: "package-lock.json (root)", version: lock.version });
  places.push({ place: 'package-lock.json packages[""]', version: lock.packages[""]?.version });
  for (const ws of WORKSPACES) {
    places.push({ place: `${ws}/package.json`, version: json(`${ws}/package.json`).version });
    places.push({ place: `package-lock.json packages["${ws}"]`, version: lock.packages[ws]?.version });
  }
  const chart = readFileSync(path.join(root, CHART), "utf8");
  places.push({ place: `${CHART} version`, version: /^version: *"?([^"\s]+)"?$/m.exec(chart)?.[1] });
  places.push({ place: `${CHART} appVersion`, version: /^appVersion: *"?([^"\s]+)"?$/m.exec(chart)?.[1] });
  places.push({ place: `${CHART} artifacthub.io/images`, version: IMAGE_LINE.exec(chart)?.[2] });
  return places;
}

/** The places that do not name `expected` (or, without it, the first place's version). */
export function disagreements(expected?: string, root = ROOT): string[] {
  const places = versionPlaces(root);
  const want = expected ?? places.find((p) => p.place === "cli/package.json")?.version;
  return places.filter((p) => p.version !== want).map((p) => `${p.place} says ${p.version}, not ${want}`);
}

function bump(version: string, root = ROOT): void {
  const editJson = (file: string, edit: (value: Record<string, unknown>) => void) => {
    const full = path.join(root, file);
    const value = JSON.parse(readFileSync(full, "utf8"));
    edit(value);
    writeFileSync(full, `${JSON.stringify(value, null, 2)}\n`);
  };
  editJson("package.json", (p) => {
    p.version = version;
  });
  for (const ws of WORKSPACES)
    editJson(`${ws}/package.json`, (p) => {
      p.version = version;
    });
  editJson("package-lock.json", (lock) => {
    lock.version = version;
    const packages = lock.packages as Record<string, { version?: string }>;
    for (const key of ["", ...WORKSPACES]) if (packages[key]) packages[key].version = version;
  });
  const chartPath = path.join(root, CHART);
  const chart = readFileSync(chartPath, "utf8")
    .replace(/^version: .*$/m, `version: ${version}`)
    .replace(/^appVersion: .*$/m, `appVersion: "${version}"`)
    .replace(IMAGE_LINE, `$1${version}`);
  writeFileSync(chartPath, chart);
}

if (import.meta.main) {
  const [command, version] = process.argv.slice(2);
  if (
    (command === "bump" && version && isVersion(version)) ||
    (command === "check" && (!version || isVersion(version)))
  ) {
    if (command === "bump") bump(version as string);
    const wrong = disagreements(version);
    for (const line of wrong) process.stderr.write(`versions: ${line}\n`);
    if (wrong.length > 0) process.exit(1);
    process.stdout.write(
      `${version ?? versionPlaces().find((p) => p.place === "cli/package.json")?.version}\n`,
    );
  } else {
    process.stderr.write(
      "usage: node scripts/release/versions.ts check [x.y.z] | bump x.y.z (x.y.z: semver)\n",
    );
    process.exit(2);
  }
}
