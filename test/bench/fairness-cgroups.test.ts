import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { chartShares, millicoresOf, sharesOf } from "../../bench/fairness/cgroups.ts";

// bench/fairness's CPU groups stand for the kubelet's: the same shares for a request, from the chart's own values.
describe("bench/fairness CPU groups", () => {
  it("gives a request the kubelet's cpu.shares (millicores × 1024 / 1000, at least 2)", () => {
    expect(sharesOf(100)).toBe(102);
    expect(sharesOf(250)).toBe(256);
    expect(sharesOf(1000)).toBe(1024);
    expect(sharesOf(1)).toBe(2);
    expect(sharesOf(0)).toBe(2);
  });

  it("reads Kubernetes CPU quantities", () => {
    expect(millicoresOf("100m")).toBe(100);
    expect(millicoresOf("1")).toBe(1000);
    expect(millicoresOf("0.5")).toBe(500);
    expect(millicoresOf(2)).toBe(2000);
    expect(millicoresOf(undefined)).toBeUndefined();
    expect(() => millicoresOf("lots")).toThrow(/not a CPU quantity/);
  });

  it("takes each pod's shares from the chart's default requests", async () => {
    const values = parse(
      await readFile(new URL("../../charts/mailroom/values.yaml", import.meta.url), "utf8"),
    ) as {
      worker: {
        resources: { requests: { cpu: string } };
        reservedLane: { resources: { requests: { cpu: string } } };
      };
    };
    const shares = await chartShares();
    expect(shares["worker-reserved"].millicores).toBe(
      millicoresOf(values.worker.reservedLane.resources.requests.cpu),
    );
    expect(shares.worker.millicores).toBe(millicoresOf(values.worker.resources.requests.cpu));
    expect(shares["worker-reserved"].shares).toBe(sharesOf(shares["worker-reserved"].millicores));
    // Not the chart's pods (or without a request in the chart): a whole CPU's weight, said so.
    expect(shares.sink).toMatchObject({ millicores: 1000, shares: 1024 });
    expect(shares.postgres.source).toMatch(/outside the cluster/);
  });

  it("gives Postgres CloudNativePG's request only when the chart runs it (off by default: external)", async () => {
    const file = new URL("../../charts/mailroom/values.yaml", import.meta.url);
    const values = parse(await readFile(file, "utf8")) as {
      postgresql: { cloudnative: { enabled: boolean; resources: { requests: { cpu: string } } } };
    };
    expect(values.postgresql.cloudnative.enabled).toBe(false);
    const dir = await mkdtemp(path.join(os.tmpdir(), "fairness-values-"));
    try {
      values.postgresql.cloudnative.enabled = true;
      const enabled = path.join(dir, "values.yaml");
      await writeFile(enabled, stringify(values));
      const shares = await chartShares(pathToFileURL(enabled));
      expect(shares.postgres).toMatchObject({
        millicores: millicoresOf(values.postgresql.cloudnative.resources.requests.cpu),
        source: "postgresql.cloudnative.resources",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
