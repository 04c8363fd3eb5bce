/**
 * The chart as Artifact Hub shows it (issue 34 item 4): icon, sources and annotations that stay true to the
 * repository (every CRD and every example, the image of this appVersion), and `global.imageRegistry`, which
 * moves every image reference to a mirror (docs/air-gap.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CHART_DIR, type Manifest, REPO_ROOT, renderChart, renderChartError } from "../helm/support/helm.ts";

const chart = parse(readFileSync(path.join(CHART_DIR, "Chart.yaml"), "utf8"));
const annotation = (key: string) => parse(chart.annotations[key]);

describe("Artifact Hub metadata", () => {
  it("names an icon the repository holds, the sources and a home", () => {
    expect(chart.icon).toMatch(/^https:\/\/.*\/docs\/assets\/icon\.svg$/);
    expect(readFileSync(path.join(REPO_ROOT, "docs/assets/icon.svg"), "utf8")).toMatch(/^<svg /);
    expect(chart.sources.length).toBeGreaterThan(0);
    expect(chart.home).toMatch(/^https:\/\//);
  });

  it("lists the image of this appVersion", () => {
    expect(annotation("artifacthub.io/images")).toEqual([
      { name: "mailroom", image: `ghcr.io/mailroom/mailroom:${chart.appVersion}` },
    ]);
  });

  it("lists every CRD of crds/, by name, kind and version", () => {
    const crds = readdirSync(path.join(REPO_ROOT, "crds")).map((f) =>
      parse(readFileSync(path.join(REPO_ROOT, "crds", f), "utf8")),
    );
    const listed = annotation("artifacthub.io/crds") as {
      name: string;
      kind: string;
      version: string;
      description: string;
    }[];
    expect(listed.map((c) => [c.name, c.kind, c.version]).sort()).toEqual(
      crds.map((c) => [c.metadata.name, c.spec.names.kind, c.spec.versions[0].name]).sort(),
    );
    for (const c of listed) expect(c.description.length).toBeGreaterThan(10);
  });

  it("carries examples/ as the CRDs' examples, unchanged", () => {
    const examples = readdirSync(path.join(REPO_ROOT, "examples"))
      .filter((f) => f.endsWith(".yaml"))
      .sort()
      .flatMap((f) =>
        parseAllDocuments(readFileSync(path.join(REPO_ROOT, "examples", f), "utf8")).map((d) => d.toJS()),
      )
      .filter(Boolean);
    expect(annotation("artifacthub.io/crdsExamples")).toEqual(examples);
  });
});

describe("global.imageRegistry", () => {
  const images = (manifests: Manifest[]) =>
    manifests
      .filter((m) => ["Deployment", "Job", "Pod"].includes(m.kind))
      .flatMap((m) => {
        const spec = m.kind === "Deployment" || m.kind === "Job" ? m.spec.template.spec : m.spec;
        return [...(spec.initContainers ?? []), ...spec.containers].map((c: { image: string }) => c.image);
      });
  const digest = `sha256:${"ab".repeat(32)}`;

  it("leaves the repository as written when empty", async () => {
    const all = images(await renderChart());
    expect(all.length).toBeGreaterThan(3);
    expect(new Set(all)).toEqual(new Set([`ghcr.io/mailroom/mailroom:${chart.appVersion}`]));
  });

  it("moves every image to the mirror, keeping its path, by tag or pinned by digest", async () => {
    const byTag = images(await renderChart({ set: { "global.imageRegistry": "mirror.internal:5000" } }));
    expect(new Set(byTag)).toEqual(new Set([`mirror.internal:5000/mailroom/mailroom:${chart.appVersion}`]));
    const byDigest = images(
      await renderChart({ set: { "global.imageRegistry": "mirror.internal/team/", "image.digest": digest } }),
    );
    expect(new Set(byDigest)).toEqual(new Set([`mirror.internal/team/mailroom/mailroom@${digest}`]));
  });

  it("prefixes a repository that names no registry host", async () => {
    const all = images(
      await renderChart({
        set: { "global.imageRegistry": "127.0.0.1:5000", "image.repository": "mailroom/mailroom" },
      }),
    );
    expect(new Set(all)).toEqual(new Set([`127.0.0.1:5000/mailroom/mailroom:${chart.appVersion}`]));
  });

  it("refuses a value that is not a registry", async () => {
    expect(await renderChartError({ set: { "global.imageRegistry": "https://mirror.internal" } })).toMatch(
      /imageRegistry/,
    );
  });
});
