/**
 * Resource names leave room for the names generated from them (`<name>-api-key`, `<name>-webhook-secret`,
 * `<name>-dns`), which must stay within 253 characters (the fake or KUBECONFIG's cluster).
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { apiKey, webhookEndpoint } from "../../../test/support/kube-fake/fixtures.ts";
import { isKubeError } from "../kube/index.ts";
import { type Harness, openHarness } from "./harness.ts";

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

/** A valid object name of exactly `length` characters, unique per test run. */
function nameOf(length: number): string {
  const head = h.name("n");
  return head + "x".repeat(length - head.length);
}

it("refuses names whose generated Secret name would pass 253 characters, and issues the longest one allowed", async () => {
  const tooLongKey = await h.kube.customResources.ApiKey.create(h.namespace, apiKey(nameOf(246))).catch(
    (e: unknown) => e,
  );
  expect(isKubeError(tooLongKey, 422)).toBe(true);
  const tooLongHook = await h.kube.customResources.WebhookEndpoint.create(
    h.namespace,
    webhookEndpoint(nameOf(239)),
  ).catch((e: unknown) => e);
  expect(isKubeError(tooLongHook, 422)).toBe(true);

  h.startOperator();
  const longest = nameOf(245);
  await h.kube.customResources.ApiKey.create(h.namespace, apiKey(longest));
  await vi.waitFor(
    async () => {
      const secret = await h.kube.secrets.get(h.namespace, `${longest}-api-key`);
      expect(secret.metadata?.name).toHaveLength(253);
    },
    { timeout: 15_000, interval: 100 },
  );
  await h.kube.customResources.ApiKey.delete(h.namespace, longest);
});
