/** Events as client-go records them: repeats aggregated into one Event's count (the fake or KUBECONFIG's cluster). */
import { afterEach, beforeEach, expect, it } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import { refOf } from "../controllers/kind-controller.ts";
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

it("records a repeated failure as one Event whose count grows, and a different one apart", async () => {
  const created = await h.kube.customResources.ApiKey.create(h.namespace, apiKey(h.name("key")));
  const ref = refOf(created);
  for (let i = 0; i < 5; i++) {
    await h.context.events.record(ref, "Warning", "ReconcileError", "database unavailable");
  }
  await h.context.events.record(ref, "Warning", "ReconcileError", "another failure");
  const events = (await h.kube.events.list(h.namespace)).items.filter(
    (e) => e.involvedObject.uid === ref.uid,
  );
  const byMessage = Object.fromEntries(events.map((e) => [e.message, e.count]));
  expect(events).toHaveLength(2);
  expect(byMessage).toEqual({ "database unavailable": 5, "another failure": 1 });
  const repeated = events.find((e) => e.message === "database unavailable");
  expect(new Date(repeated?.lastTimestamp ?? 0).getTime()).toBeGreaterThanOrEqual(
    new Date(repeated?.firstTimestamp ?? 0).getTime(),
  );
});
