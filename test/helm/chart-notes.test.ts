import { describe, expect, it } from "vitest";
import { CHART_DIR, findManifest, renderChart, runHelm } from "./support/helm.ts";

// NOTES.txt is what a new user follows after `helm install`: rendered by the real helm (a client-side dry run
// needs no cluster), its send must come from the domain it has just told them to declare and verify.
async function notes(set: Record<string, string> = {}): Promise<string> {
  const args = ["install", "mr", CHART_DIR, "--namespace", "mail", "--dry-run=client"];
  for (const [key, value] of Object.entries(set)) args.push("--set", `${key}=${value}`);
  const result = await runHelm(args);
  if (result.code !== 0) throw new Error(`helm install --dry-run failed:\n${result.stderr}`);
  return result.stdout.slice(result.stdout.indexOf("NOTES:"));
}

describe("NOTES.txt", () => {
  it("sends from the SendingDomain it declares, after waiting for it to be verified", async () => {
    const text = await notes();
    const declared = /kind: SendingDomain[\s\S]*?domain: (\S+)/.exec(text)?.[1];
    const from = /"from":"[^"@]*@([^"]+)"/.exec(text)?.[1];
    expect(declared).toBeDefined();
    expect(from).toBe(declared);
    expect(text).toContain("kubectl wait -n mail sendingdomain/first-domain --for=condition=Ready");
    expect(text.indexOf("sendingdomain/first-domain --for=condition=Ready")).toBeLessThan(
      text.indexOf("/v1/send"),
    );
    expect(text).toContain("helm test mr -n mail");
    expect(text).toContain("without sending");
    expect(text).not.toMatch(/\bnpx\b/);
  });

  it("declares the key and the domain in a namespace the operator watches", async () => {
    const text = await notes({ "operator.watchNamespaces": "{team-a,team-b}" });
    expect(text).toContain("kubectl apply -n team-a -f -");
    expect(text).toContain("kubectl wait -n team-a apikey/first-key");
    expect(text).toContain("kubectl get secret -n team-a first-key-api-key");
    expect(text).toContain("kubectl wait -n team-a sendingdomain/first-domain --for=condition=Ready");
    expect(text).not.toContain("kubectl apply -n mail -f -");
    // Watching the release namespace too: it stays the place to declare them.
    const own = await notes({ "operator.watchNamespaces": "{team-a,mail}" });
    expect(own).toContain("kubectl wait -n mail apikey/first-key");
  });

  it("says what helm test sends when tests.from is set", async () => {
    const text = await notes({ "tests.from": "helm-test@mail.acme.test", "tests.waitForDelivery": "true" });
    expect(text).toContain("sends one email from helm-test@mail.acme.test and waits until it is delivered");
  });
});

describe("helm test hook", () => {
  const FULL = "mr-mailroom";
  const hooks = async (set: Record<string, string> = {}) =>
    (await renderChart({ set })).filter((m) => m.metadata.annotations?.["helm.sh/hook"] === "test");

  it("in the release's namespace mounts the key's Secret and runs without a token", async () => {
    const rendered = await hooks();
    expect(findManifest(rendered, "ApiKey", `${FULL}-helm-test`).metadata.namespace).toBe("mail");
    const pod = findManifest(rendered, "Pod", `${FULL}-helm-test-send`).spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.volumes.map((v: { name: string }) => v.name)).toContain("api-key");
    expect(rendered.filter((m) => m.kind === "Role" || m.kind === "ServiceAccount")).toEqual([]);
  });

  it("with a namespaced operator declares the key where it looks and reads that one Secret through a Role", async () => {
    const rendered = await hooks({ "operator.watchNamespaces[0]": "team-a" });
    expect(findManifest(rendered, "ApiKey", `${FULL}-helm-test`).metadata.namespace).toBe("team-a");
    const role = findManifest(rendered, "Role", `${FULL}-helm-test`);
    expect(role.metadata.namespace).toBe("team-a");
    expect(role.rules).toEqual([
      {
        apiGroups: [""],
        resources: ["secrets"],
        resourceNames: [`${FULL}-helm-test-api-key`],
        verbs: ["get"],
      },
    ]);
    const binding = findManifest(rendered, "RoleBinding", `${FULL}-helm-test`);
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: `${FULL}-helm-test`, namespace: "mail" },
    ]);
    const pod = findManifest(rendered, "Pod", `${FULL}-helm-test-send`).spec;
    expect(pod.serviceAccountName).toBe(`${FULL}-helm-test`);
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(pod.volumes.map((v: { name: string }) => v.name)).not.toContain("api-key");
    expect(pod.containers[0].env).toContainEqual({
      name: "TEST_API_KEY_SECRET",
      value: `team-a/${FULL}-helm-test-api-key`,
    });
  });
});
