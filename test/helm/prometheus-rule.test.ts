import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  createApiMetrics,
  createProgramRegistry,
  createWorkerMetrics,
  observeDatabaseState,
  observePool,
  observeTenants,
} from "@mailroom/core/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createOperatorMetrics } from "../../operator/src/runtime/metrics.ts";
import { findManifest, type Manifest, REPO_ROOT, renderChart } from "./support/helm.ts";

// The chart's PrometheusRule goes through the real promtool (Debian's `prometheus` package): `check rules`
// on the rendered rule, then `test rules` with the unit tests of every alert in promtool/.
const run = promisify(execFile);
const PROMTOOL_TESTS = path.join(REPO_ROOT, "test/helm/promtool/mailroom-alerts.test.yaml");
const FULL = "mr-mailroom";

async function promtoolAvailable(): Promise<boolean> {
  try {
    await run("promtool", ["--version"]);
    return true;
  } catch {
    // CI runs as root and installs it (scripts/install-system-packages.sh): there, its absence is a failure.
    if (process.getuid?.() === 0)
      throw new Error("promtool is missing: run scripts/install-system-packages.sh");
    console.warn("skipping promtool checks: promtool is not installed (apt-get install prometheus)");
    return false;
  }
}
const hasPromtool = await promtoolAvailable();

async function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("promtool", args, { cwd, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** The names of every series the programs register (histograms add _bucket, _sum and _count). */
function exportedSeries(): Set<string> {
  const registry = createProgramRegistry("all");
  createApiMetrics(registry);
  createWorkerMetrics(registry);
  observePool(registry, { totalCount: 0, idleCount: 0, waitingCount: 0 }, 1);
  observeDatabaseState(registry, { query: () => Promise.reject(new Error("not read")) } as never);
  observeTenants(registry, { query: () => Promise.reject(new Error("not read")) } as never);
  createOperatorMetrics(registry);
  return new Set(registry.getMetricsAsArray().map((m) => m.name));
}

function seriesNamesIn(text: string): string[] {
  const names = new Set(text.match(/\bmailroom_[a-z_]+/g) ?? []);
  return [...names].map((n) => n.replace(/_(bucket|sum|count)$/, "")).sort();
}

describe("PrometheusRule and Grafana dashboard", () => {
  let dir: string;
  let manifests: Manifest[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-promtool-"));
    manifests = await renderChart({
      set: { "metrics.prometheusRule.enabled": "true", "metrics.grafanaDashboard.enabled": "true" },
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("are off by default", async () => {
    const kinds = (await renderChart()).map((m) => `${m.kind}/${m.metadata.name}`);
    expect(kinds).not.toContain(`PrometheusRule/${FULL}`);
    expect(kinds).not.toContain(`ConfigMap/${FULL}-dashboard`);
  });

  it.skipIf(!hasPromtool)(
    "the rendered rule passes `promtool check rules` and the alerts' unit tests",
    async () => {
      const rule = findManifest(manifests, "PrometheusRule", FULL);
      await writeFile(path.join(dir, "rules.yaml"), stringify(rule.spec));
      await copyFile(PROMTOOL_TESTS, path.join(dir, "alerts.test.yaml"));
      const check = await promtool(["check", "rules", "rules.yaml"], dir);
      expect(check.output).toContain("SUCCESS: 12 rules found");
      expect(check.code).toBe(0);
      const test = await promtool(["test", "rules", "alerts.test.yaml"], dir);
      expect(test.output).toContain("SUCCESS");
      expect(test.code).toBe(0);
    },
  );

  it.skipIf(!hasPromtool)("the alert unit tests catch a threshold that changed", async () => {
    const changed = await renderChart({
      set: { "metrics.prometheusRule.enabled": "true", "metrics.prometheusRule.oldestQueuedMinutes": "30" },
    });
    await writeFile(
      path.join(dir, "rules.yaml"),
      stringify(findManifest(changed, "PrometheusRule", FULL).spec),
    );
    await copyFile(PROMTOOL_TESTS, path.join(dir, "alerts.test.yaml"));
    const test = await promtool(["test", "rules", "alerts.test.yaml"], dir);
    expect(test.code).not.toBe(0);
    expect(test.output).toContain("alertname: MailroomOldestQueuedEmailTooOld");
  });

  it("leaves out the operator's alerts when the operator is not installed", async () => {
    const off = await renderChart({
      set: { "metrics.prometheusRule.enabled": "true", "operator.enabled": "false" },
    });
    const groups = findManifest(off, "PrometheusRule", FULL).spec.groups as Array<{ name: string }>;
    expect(groups.map((g) => g.name)).toEqual(["mailroom.delivery", "mailroom.integrations"]);
  });

  it("every alert has a runbook in docs/runbooks/", async () => {
    const rule = findManifest(manifests, "PrometheusRule", FULL);
    const rules = (
      rule.spec.groups as Array<{ rules: Array<{ alert: string; annotations: { runbook: string } }> }>
    ).flatMap((g) => g.rules);
    expect(rules).toHaveLength(12);
    const index = await readFile(path.join(REPO_ROOT, "docs/runbooks/README.md"), "utf8");
    for (const r of rules) {
      const file = r.annotations.runbook.split(" ")[0] ?? "";
      const text = await readFile(path.join(REPO_ROOT, file), "utf8");
      expect(text.split("\n")[0]).toBe(`# ${r.alert}`);
      expect(index).toContain(`| ${r.alert} |`);
    }
  });

  it("ships the dashboard as a ConfigMap the Grafana sidecar picks up", () => {
    const cm = findManifest(manifests, "ConfigMap", `${FULL}-dashboard`);
    expect(cm.metadata.labels?.grafana_dashboard).toBe("1");
    const dashboard = JSON.parse(cm.data["mailroom.json"]) as { uid: string; panels: unknown[] };
    expect(dashboard.uid).toBe("mailroom-overview");
    expect(dashboard.panels.length).toBeGreaterThan(10);
  });

  it("the rule and the dashboard read only series that a program exports", () => {
    const exported = exportedSeries();
    const rule = JSON.stringify(findManifest(manifests, "PrometheusRule", FULL).spec);
    const dashboard = findManifest(manifests, "ConfigMap", `${FULL}-dashboard`).data["mailroom.json"];
    const read = seriesNamesIn(rule + dashboard);
    expect(read.length).toBeGreaterThan(15);
    expect(read.filter((name) => !exported.has(name))).toEqual([]);
  });
});
