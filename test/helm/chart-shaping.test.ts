import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import { findManifest, renderChart, renderChartError } from "./support/helm.ts";

const env = async (set: Record<string, string> = {}) =>
  findManifest(await renderChart({ set }), "ConfigMap", "mr-mailroom-config").data;
const configOf = (data: Record<string, string>) =>
  loadConfig({ ...data, DATABASE_URL: "postgres://u:p@db:5432/mailroom" });

// Direct delivery's shaping per destination (ADR 0059): the chart's values reach the worker's config.
describe("config.shaping", () => {
  it("passes the defaults, the built-in provider groups included, to the programs", async () => {
    const data = await env();
    expect(data.MAILROOM_SHAPING_PROVIDERS).toBeUndefined();
    const { shaping } = configOf(data);
    expect(shaping.providers.map((p) => p.name)).toEqual(["gmail", "microsoft", "yahoo", "apple"]);
    expect(shaping).toMatchObject({ backoffSeconds: 30, backoffMaxSeconds: 900, maxWaitSeconds: 10 });
    expect(shaping.defaults).toEqual({ concurrency: 5, messagesPerConnection: 100, ratePerMinute: 0 });
  });

  it("renders provider groups as the JSON the worker parses", async () => {
    const data = await env({
      "config.shaping.providers[0].name": "corp",
      "config.shaping.providers[0].mxSuffixes[0]": "*.mail.corp.example",
      "config.shaping.providers[0].concurrency": "3",
      "config.shaping.providers[0].ratePerMinute": "90",
      "config.shaping.backoffSeconds": "45",
    });
    const { shaping } = configOf(data);
    expect(shaping.providers).toEqual([
      {
        name: "corp",
        mxSuffixes: ["mail.corp.example"],
        concurrency: 3,
        messagesPerConnection: 100,
        ratePerMinute: 90,
      },
    ]);
    expect(shaping.backoffSeconds).toBe(45);
  });

  it.each<{ set: Record<string, string>; says: RegExp }>([
    { set: { "config.shaping.maxWaitSeconds": "-1" }, says: /maxWaitSeconds/ },
    {
      set: {
        "config.shaping.providers[0].name": "other",
        "config.shaping.providers[0].mxSuffixes[0]": "x.example",
      },
      says: /providers\/0\/name|providers\.0\.name/,
    },
    { set: { "config.shaping.providers[0].name": "corp" }, says: /mxSuffixes/ },
    { set: { "config.shaping.burst": "3" }, says: /burst/ },
  ])("rejects $set with a message naming the value", async ({ set, says }) => {
    expect(await renderChartError({ set })).toMatch(says);
  });
});
