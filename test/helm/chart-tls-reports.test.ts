import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import { findManifest, renderChart, renderChartError } from "./support/helm.ts";

const DATABASE_URL = "postgres://u:p@db:5432/mailroom";

describe("config.tlsReports (RFC 8460 reports, ADR 0058)", () => {
  it("is off by default: no variable, no report sender", async () => {
    const env = findManifest(await renderChart({}), "ConfigMap", "mr-mailroom-config").data;
    expect(Object.keys(env).filter((k) => k.startsWith("MAILROOM_TLSRPT_"))).toEqual([]);
    expect(loadConfig({ ...env, DATABASE_URL }).tlsReports).toBeUndefined();
  });

  it("passes the reporting sender to the programs", async () => {
    const rendered = await renderChart({
      set: {
        "config.tlsReports.from": "tls-reports@mail.example.com",
        "config.tlsReports.keyId": "AbCdEf012345",
        "config.tlsReports.organization": "Example Mail",
      },
    });
    const env = findManifest(rendered, "ConfigMap", "mr-mailroom-config").data;
    expect(loadConfig({ ...env, DATABASE_URL }).tlsReports).toEqual({
      from: "tls-reports@mail.example.com",
      keyId: "AbCdEf012345",
      submitter: "mail.example.com",
      organizationName: "Example Mail",
      contactInfo: "tls-reports@mail.example.com",
    });
  });

  it.each<{ set: Record<string, string>; says: RegExp }>([
    {
      set: { "config.tlsReports.from": "not an address", "config.tlsReports.keyId": "AbCdEf012345" },
      says: /tlsReports/,
    },
    { set: { "config.tlsReports.from": "a@b.example", "config.tlsReports.keyId": "short" }, says: /keyId/ },
    { set: { "config.tlsReports.from": "a@b.example" }, says: /keyId is required/ },
  ])("refuses $set with a message naming the value", async ({ set, says }) => {
    expect(await renderChartError({ set })).toMatch(says);
  });
});
