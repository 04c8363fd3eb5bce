/** SendingDomain, Template and WebhookEndpoint controller contract (the fake, or KUBECONFIG's cluster). */
import { getDomain } from "@mailroom/core/domains";
import { getTemplateByName } from "@mailroom/core/templates";
import { activeSecrets, listEndpoints } from "@mailroom/core/webhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sendingDomain, template, webhookEndpoint } from "../../../test/support/kube-fake/fixtures.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
let h: Harness;
beforeEach(async () => {
  h = await openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
  });
});
afterEach(async () => {
  await h.close();
});

type WithConditions = { status?: { conditions?: { type: string; status: string; reason: string }[] } };
const cond = (o: WithConditions, type: string) => o.status?.conditions?.find((c) => c.type === type);
const crs = () => h.kube.customResources;

describe("SendingDomain controller", () => {
  it.skipIf(Boolean(process.env.KUBECONFIG))(
    "publishes the records, reports a second namespace's declaration as Conflict, and hands over on delete",
    async () => {
      h.startOperator({ resyncMs: 300 });
      const other = `${h.namespace}-b`;
      await crs().SendingDomain.create(h.namespace, sendingDomain("first", { domain: "mail.example.com" }));
      await vi.waitFor(async () => {
        const d = await crs().SendingDomain.get(h.namespace, "first");
        expect(cond(d, "Synced")?.status).toBe("True");
        expect(cond(d, "Ready")).toMatchObject({ status: "False", reason: "VerificationPending" });
        expect(d.status?.verification).toBe("pending");
        expect(d.status?.records?.some((r) => r.name.includes("_domainkey.mail.example.com"))).toBe(true);
      }, WAIT);
      await crs().SendingDomain.create(other, sendingDomain("second", { domain: "mail.example.com" }));
      await vi.waitFor(async () => {
        const d = await crs().SendingDomain.get(other, "second");
        expect(cond(d, "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
      }, WAIT);
      expect(await getDomain(h.db.pool, other, "mail.example.com")).toBeUndefined();
      await crs().SendingDomain.delete(h.namespace, "first");
      // Conflicts are re-checked on a timer (30 s) and by resync (300 ms here).
      await vi.waitFor(async () => {
        expect(await getDomain(h.db.pool, h.namespace, "mail.example.com")).toBeUndefined();
        const d = await crs().SendingDomain.get(other, "second");
        expect(cond(d, "Synced")?.status).toBe("True");
      }, WAIT);
      expect(await getDomain(h.db.pool, other, "mail.example.com")).toBeDefined();
    },
  );
});

describe("Template controller", () => {
  it("makes a version per content change and keeps the template on delete with Retain", async () => {
    h.startOperator();
    const name = h.name("tpl");
    await crs().Template.create(h.namespace, template(name, { reclaimPolicy: "Retain" }));
    await vi.waitFor(async () => {
      const t = await crs().Template.get(h.namespace, name);
      expect(t.status?.version).toBe(1);
      expect(cond(t, "Ready")?.status).toBe("True");
    }, WAIT);
    await crs().Template.patch(h.namespace, name, { spec: { text: "Bye {{name}}" } });
    await vi.waitFor(async () => {
      expect((await crs().Template.get(h.namespace, name)).status?.version).toBe(2);
    }, WAIT);
    expect(await getTemplateByName(h.db.pool, h.namespace, name)).toMatchObject({
      text: "Bye {{name}}",
      managedBy: "operator",
    });
    await crs().Template.delete(h.namespace, name);
    await vi.waitFor(async () => {
      const err = await crs()
        .Template.get(h.namespace, name)
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 404 });
    }, WAIT);
    expect(await getTemplateByName(h.db.pool, h.namespace, name)).toBeDefined();
  });
});

describe("Template controller and example variables (issue 33)", () => {
  it("names the resource on the template, serves its declared examples, and reports examples its schema refuses as Invalid", async () => {
    h.startOperator();
    const name = h.name("tpl");
    const variablesSchema = {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" } },
      examples: [{ name: "Ann" }],
    };
    await crs().Template.create(h.namespace, template(name, { variablesSchema }));
    await vi.waitFor(async () => {
      expect(cond(await crs().Template.get(h.namespace, name), "Ready")?.status).toBe("True");
      const stored = await getTemplateByName(h.db.pool, h.namespace, name);
      expect(stored).toMatchObject({
        managedByResource: `Template/${name}`,
        exampleVariables: { name: "Ann" },
      });
    }, WAIT);
    await crs().Template.patch(h.namespace, name, {
      spec: { variablesSchema: { ...variablesSchema, examples: [{ name: 7 }] } },
    });
    await vi.waitFor(async () => {
      const t = await crs().Template.get(h.namespace, name);
      expect(cond(t, "Synced")).toMatchObject({ status: "False", reason: "Invalid" });
      expect(t.status?.conditions?.find((c) => c.type === "Synced")?.message).toBe(
        "variables.examples[0]: does not match the schema: name must be string",
      );
    }, WAIT);
    expect((await getTemplateByName(h.db.pool, h.namespace, name))?.version).toBe(1);
  });
});

describe("WebhookEndpoint controller", () => {
  it("generates the signing secret into a Secret, and deletes the endpoint with its resource", async () => {
    h.startOperator();
    const name = h.name("hook");
    await crs().WebhookEndpoint.create(h.namespace, webhookEndpoint(name));
    let endpointId = "";
    await vi.waitFor(async () => {
      const w = await crs().WebhookEndpoint.get(h.namespace, name);
      expect(cond(w, "Ready")?.status).toBe("True");
      const [endpoint] = await listEndpoints(h.db.pool, h.namespace);
      expect(endpoint?.managedBy).toBe("operator");
      endpointId = endpoint?.id ?? "";
    }, WAIT);
    const secret = await h.kube.secrets.get(h.namespace, `${name}-webhook-secret`);
    const signing = Buffer.from(secret.data?.signingSecret ?? "", "base64").toString("utf8");
    expect(signing).toMatch(/^whsec_/);
    expect(await activeSecrets(h.db.pool, endpointId, new Date())).toEqual([signing]);
    await crs().WebhookEndpoint.delete(h.namespace, name);
    await vi.waitFor(async () => expect(await listEndpoints(h.db.pool, h.namespace)).toEqual([]), WAIT);
  });
});
