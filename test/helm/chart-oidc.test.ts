import { readFile } from "node:fs/promises";
import { loadConfig } from "@mailroom/core/config";
import { SCOPES } from "@mailroom/core/keys";
import { describe, expect, it } from "vitest";
import { findManifest, renderChart, renderChartError } from "./support/helm.ts";

const OIDC = {
  "oidc.issuer": "https://login.example.com/realms/acme",
  "oidc.clientId": "mailroom",
  "oidc.redirectUri": "https://mail.example.com/console/",
  "oidc.roles[0].group": "mail-admins",
  "oidc.roles[0].account": "default",
  "oidc.roles[0].scopes[0]": "send",
  "oidc.roles[0].scopes[1]": "domains",
  "oidc.clientSecretExistingSecret": "mailroom-oidc",
};

/** People's sign-in (ADR 0063): the chart's `oidc.*` values become the API's MAILROOM_OIDC_* variables. */
describe("the chart's oidc values", () => {
  it("configures the provider, roles and timeouts, with the client secret from a Secret", async () => {
    const manifests = await renderChart({ set: OIDC });
    const env = findManifest(manifests, "ConfigMap", "mr-mailroom-config").data;
    const config = loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" });
    expect(config.oidc.provider).toMatchObject({
      issuer: OIDC["oidc.issuer"],
      clientId: "mailroom",
      redirectUri: OIDC["oidc.redirectUri"],
      groupsClaim: "groups",
    });
    expect(config.oidc.roles).toEqual([
      { group: "mail-admins", account: "default", scopes: ["send", "domains"] },
    ]);
    expect(config.oidc.idleTimeoutSeconds).toBe(3600);
    expect(config.oidc.recheckSeconds).toBe(300);
    const api = findManifest(manifests, "Deployment", "mr-mailroom-api").spec.template.spec.containers[0];
    expect(api.env).toContainEqual({
      name: "MAILROOM_OIDC_CLIENT_SECRET",
      valueFrom: { secretKeyRef: { name: "mailroom-oidc", key: "client-secret" } },
    });
    expect(JSON.stringify(env)).not.toContain("client-secret");
  });

  it("leaves sign-in off by default", async () => {
    const env = findManifest(await renderChart({}), "ConfigMap", "mr-mailroom-config").data;
    expect(Object.keys(env).filter((name) => name.startsWith("MAILROOM_OIDC_"))).toEqual([]);
  });

  it("lets a role grant every scope Mailroom has (audit and keys too), and only those", async () => {
    const schema = JSON.parse(
      await readFile(new URL("../../charts/mailroom/values.schema.json", import.meta.url), "utf8"),
    );
    expect(schema.properties.oidc.properties.roles.items.properties.scopes.items.enum).toEqual([...SCOPES]);
  });

  it("rejects a role with a scope Mailroom does not have", async () => {
    const stderr = await renderChartError({ set: { ...OIDC, "oidc.roles[0].scopes[0]": "admin" } });
    expect(stderr).toMatch(/oidc\/roles\/0\/scopes\/0|oidc\.roles\.0\.scopes\.0|scopes/);
  });
});
