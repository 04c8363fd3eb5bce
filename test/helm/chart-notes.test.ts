import { describe, expect, it } from "vitest";
import { CHART_DIR, runHelm } from "./support/helm.ts";

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
