import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import { findManifest, renderChart, renderChartError } from "./support/helm.ts";

// values.schema.json is strict: a typo or a wrong type stops `helm install` with a message naming the value,
// instead of rendering something that fails later in the cluster.
describe("values.schema.json", () => {
  it.each<{ set: Record<string, string>; says: RegExp }>([
    { set: { "api.replcias": "3" }, says: /replcias/ },
    { set: { "tls.mode": "selfSigned" }, says: /tls\/mode|tls\.mode/ },
    { set: { "config.delivery.mode": "smoke-signal" }, says: /delivery\/mode|delivery\.mode/ },
    { set: { "api.replicas": "-1" }, says: /api\/replicas|api\.replicas/ },
    { set: { "smtp.url": "http://relay:25" }, says: /smtp\/url|smtp\.url/ },
    { set: { "database.existingSecret": "" }, says: /database\/existingSecret|database\.existingSecret/ },
    { set: { "image.pullPolicy": "Sometimes" }, says: /pullPolicy/ },
    { set: { "config.dnsCacheSeconds": "-1" }, says: /dnsCacheSeconds/ },
    { set: { "config.simulator.domain": "not a domain" }, says: /simulator\/domain|simulator\.domain/ },
    { set: { "tls.mode": "certManager" }, says: /issuerRef\/name|issuerRef\.name/ },
    {
      set: { "tls.mode": "existingSecret", "tls.existingSecret.name": "" },
      says: /existingSecret\/name|existingSecret\.name/,
    },
  ])("rejects $set with a message naming the value", async ({ set, says }) => {
    const stderr = await renderChartError({ set });
    expect(stderr).toMatch(/values don't meet the specifications of the schema|schema/i);
    expect(stderr).toMatch(says);
  });

  it("accepts overrides of passthrough Kubernetes fields", async () => {
    const manifests = await renderChart({
      set: {
        "api.nodeSelector.pool": "mail",
        "api.tolerations[0].key": "dedicated",
        "api.tolerations[0].operator": "Exists",
        "worker.resources.limits.cpu": "2",
      },
    });
    const api = findManifest(manifests, "Deployment", "mr-mailroom-api").spec.template.spec;
    expect(api.nodeSelector).toEqual({ pool: "mail" });
    expect(api.tolerations).toEqual([{ key: "dedicated", operator: "Exists" }]);
  });

  it("omits replicas when an HPA owns them", async () => {
    const manifests = await renderChart({ set: { "api.autoscaling.enabled": "true" } });
    expect(findManifest(manifests, "Deployment", "mr-mailroom-api").spec.replicas).toBeUndefined();
    const hpa = findManifest(manifests, "HorizontalPodAutoscaler", "mr-mailroom-api");
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "mr-mailroom-api",
    });
  });

  it("passes config.simulator.domain to the programs; off turns the simulator off", async () => {
    const rendered = await renderChart({ set: { "config.simulator.domain": "off" } });
    const env = findManifest(rendered, "ConfigMap", "mr-mailroom-config").data;
    expect(env.MAILROOM_SIMULATOR_DOMAIN).toBe("off");
    expect(
      loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" }).simulator.domain,
    ).toBeUndefined();
    const byDefault = findManifest(await renderChart({}), "ConfigMap", "mr-mailroom-config").data;
    expect(byDefault.MAILROOM_SIMULATOR_DOMAIN).toBe("simulator.mailroom.invalid");
  });
});
