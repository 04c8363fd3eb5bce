/**
 * ApiKey controller contract: runs against the in-process fake, or a real cluster when KUBECONFIG is set
 * (CRDs installed, namespace MAILROOM_CONTRACT_NAMESPACE existing, default "mailroom-contract").
 */
import { randomUUID } from "node:crypto";
import { findKeyForAuth, listKeys, revokeKey, secretMatches } from "@mailroom/core/keys";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiKey } from "../../../test/support/kube-fake/fixtures.ts";
import { FINALIZER } from "../controllers/sync.ts";
import type { ApiKey } from "../crds/index.ts";
import { isKubeError } from "../kube/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
let h: Harness;
const open = (extra: { ownerReferences?: boolean } = {}) =>
  openHarness({
    kubeconfigPath: process.env.KUBECONFIG,
    clusterNamespace: process.env.MAILROOM_CONTRACT_NAMESPACE,
    ...extra,
  });
beforeEach(async () => {
  h = await open();
});
afterEach(async () => {
  await h.close();
});

const keys = () => h.kube.customResources.ApiKey;
const readSecret = async (name: string) => {
  const s = await h.kube.secrets.get(h.namespace, name);
  return Object.fromEntries(
    Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );
};
const condition = (k: ApiKey | undefined, type: string) =>
  k?.status?.conditions?.find((c) => c.type === type);

async function readyKey(name: string, generation = 1): Promise<ApiKey> {
  let key: ApiKey | undefined;
  await vi.waitFor(async () => {
    key = await keys().get(h.namespace, name);
    expect(condition(key, "Ready")).toMatchObject({ status: "True", observedGeneration: generation });
  }, WAIT);
  return key as ApiKey;
}

async function queuedEmail(keyId: string): Promise<string> {
  const id = randomUUID();
  await h.db.pool.query(
    `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, text, category,
                         message_id_header)
     values ($1, $2, $3, 'queued', 'a@mail.example.com', '{b@example.net}', 's', 't', 'transactional', $4)`,
    [id, h.namespace, keyId, `<${id}@mail.example.com>`],
  );
  return id;
}

async function gone(name: string) {
  await vi.waitFor(async () => {
    const err = await keys()
      .get(h.namespace, name)
      .catch((e: unknown) => e);
    expect(isKubeError(err, 404)).toBe(true);
  }, WAIT);
}

describe("ApiKey controller", () => {
  it("issues a key into a Secret and reports it in status, never the key itself", async () => {
    h.startOperator();
    const name = h.name("key");
    await keys().create(h.namespace, apiKey(name, { scopes: ["send", "templates"], expiresIn: "30d" }));
    const key = await readyKey(name);
    const secret = await readSecret(`${name}-api-key`);
    expect(secret.keyId).toBe(key.status?.keyId);
    const [, keyId = "", secretPart = ""] = (secret.apiKey ?? "").split("_");
    expect(keyId).toBe(key.status?.keyId);
    const stored = await findKeyForAuth(h.db.pool, keyId);
    expect(stored && secretMatches(secretPart, stored.secretSha256)).toBe(true);
    expect(stored?.key).toMatchObject({
      account: h.namespace,
      scopes: ["send", "templates"],
      managedBy: "operator",
      mode: "live",
    });
    expect(Date.parse(key.status?.expiresAt ?? "") - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(key.metadata.finalizers).toContain(FINALIZER);
    expect(condition(key, "Synced")).toMatchObject({ status: "True", observedGeneration: 1 });
    expect(JSON.stringify(key)).not.toContain(secret.apiKey);
    expect(h.logs.join("\n")).not.toContain("mrk_");
    const events = await h.kube.events.list(h.namespace);
    expect(events.items.map((e) => `${e.involvedObject.name} ${e.reason}`)).toContain(`${name} Created`);
  });

  it("issues a sandbox key for spec.mode: sandbox (issue 30), whose mail is captured", async () => {
    h.startOperator();
    const name = h.name("sbx");
    await keys().create(h.namespace, apiKey(name, { mode: "sandbox" }));
    const key = await readyKey(name);
    const stored = await findKeyForAuth(h.db.pool, key.status?.keyId ?? "");
    expect(stored?.key.mode).toBe("sandbox");
  });

  it("follows a spec change with observedGeneration and keeps the same key", async () => {
    h.startOperator();
    const name = h.name("upd");
    await keys().create(h.namespace, apiKey(name));
    const first = await readyKey(name);
    await keys().patch(h.namespace, name, { spec: { reclaimPolicy: "Retain" } });
    const second = await readyKey(name, 2);
    expect(second.status?.keyId).toBe(first.status?.keyId);
    expect(await listKeys(h.db.pool, { account: h.namespace })).toHaveLength(1);
  });

  it("reclaimPolicy Delete revokes the key, fails its queued mail and removes the Secret", async () => {
    h.startOperator();
    const name = h.name("del");
    await keys().create(h.namespace, apiKey(name));
    const keyId = (await readyKey(name)).status?.keyId ?? "";
    const emailId = await queuedEmail(keyId);
    await keys().delete(h.namespace, name);
    await gone(name);
    const stored = await findKeyForAuth(h.db.pool, keyId);
    expect(stored?.key.revokedAt).toBeInstanceOf(Date);
    const { rows } = await h.db.pool.query("select status, failure_reason from emails where id = $1", [
      emailId,
    ]);
    expect(rows[0]).toEqual({ status: "failed", failure_reason: "api_key_revoked" });
    const err = await h.kube.secrets.get(h.namespace, `${name}-api-key`).catch((e: unknown) => e);
    expect(isKubeError(err, 404)).toBe(true);
  });

  it("reclaimPolicy Retain leaves the key active and its Secret in place, with no owner reference", async () => {
    await h.close();
    h = await open({ ownerReferences: true });
    h.startOperator();
    const name = h.name("ret");
    await keys().create(h.namespace, apiKey(name, { reclaimPolicy: "Retain" }));
    const keyId = (await readyKey(name)).status?.keyId ?? "";
    const before = await h.kube.secrets.get(h.namespace, `${name}-api-key`);
    // Garbage collection must never take the Secret of a key that outlives its resource.
    expect(before.metadata?.ownerReferences).toBeUndefined();
    const emailId = await queuedEmail(keyId);
    await keys().delete(h.namespace, name);
    await gone(name);
    expect((await findKeyForAuth(h.db.pool, keyId))?.key.revokedAt).toBeNull();
    expect((await readSecret(`${name}-api-key`)).keyId).toBe(keyId);
    const { rows } = await h.db.pool.query("select status from emails where id = $1", [emailId]);
    expect(rows[0]?.status).toBe("queued");
  });

  it("reports a key revoked behind its back as Ready=False and does not re-issue it", async () => {
    const operator = h.startOperator({ resyncMs: 200 });
    const name = h.name("rev");
    await keys().create(h.namespace, apiKey(name));
    const keyId = (await readyKey(name)).status?.keyId ?? "";
    await revokeKey(h.db.pool, keyId);
    await vi.waitFor(async () => {
      const key = await keys().get(h.namespace, name);
      expect(condition(key, "Ready")).toMatchObject({ status: "False", reason: "KeyRevoked" });
      expect(condition(key, "Synced")).toMatchObject({ status: "False", reason: "KeyRevoked" });
    }, WAIT);
    await operator.settled();
    expect((await listKeys(h.db.pool, { account: h.namespace })).map((k) => k.keyId)).toEqual([keyId]);
  });

  it("re-issues a key deleted behind its back, and rotates a key whose Secret was lost", async () => {
    h.startOperator({ resyncMs: 200 });
    const name = h.name("drift");
    await keys().create(h.namespace, apiKey(name));
    const first = (await readyKey(name)).status?.keyId ?? "";
    await h.db.pool.query("delete from api_keys where key_id = $1", [first]);
    let second = "";
    await vi.waitFor(async () => {
      second = (await keys().get(h.namespace, name)).status?.keyId ?? "";
      expect(second).not.toBe(first);
      expect((await readSecret(`${name}-api-key`)).keyId).toBe(second);
    }, WAIT);
    await h.kube.secrets.delete(h.namespace, `${name}-api-key`);
    await vi.waitFor(async () => {
      const third = (await readSecret(`${name}-api-key`)).keyId ?? "";
      expect(third).not.toBe(second);
      expect((await keys().get(h.namespace, name)).status?.keyId).toBe(third);
    }, WAIT);
    expect((await findKeyForAuth(h.db.pool, second))?.key.revokedAt).toBeInstanceOf(Date);
  });

  it("refuses to overwrite a Secret it did not write", async () => {
    h.startOperator();
    const name = h.name("taken");
    await h.kube.secrets.create(h.namespace, {
      metadata: { name: `${name}-api-key` },
      stringData: { x: "y" },
    });
    await keys().create(h.namespace, apiKey(name));
    await vi.waitFor(async () => {
      const key = await keys().get(h.namespace, name);
      expect(condition(key, "Ready")).toMatchObject({ status: "False", reason: "SecretConflict" });
    }, WAIT);
    expect(await readSecret(`${name}-api-key`)).toEqual({ x: "y" });
    expect(await listKeys(h.db.pool, { account: h.namespace })).toHaveLength(0);
  });

  it("refuses a second ApiKey naming a Secret the first one owns, saying which resource owns it", async () => {
    const operator = h.startOperator({ resyncMs: 200 });
    const first = h.name("first");
    const second = h.name("second");
    const secretName = h.name("shared");
    await keys().create(h.namespace, apiKey(first, { secretName }));
    const firstKeyId = (await readyKey(first)).status?.keyId ?? "";
    await keys().create(h.namespace, apiKey(second, { secretName }));
    await vi.waitFor(async () => {
      const key = await keys().get(h.namespace, second);
      expect(condition(key, "Ready")).toMatchObject({ status: "False", reason: "SecretConflict" });
      expect(condition(key, "Ready")?.message).toContain(`belongs to ApiKey/${first}`);
    }, WAIT);
    // Several resyncs of both later, the first key is still the one in the Secret, and still active.
    const reconciles = async () =>
      ((await operator.registry.getSingleMetric("mailroom_operator_reconciles_total")?.get())?.values ?? [])
        .filter((v) => v.labels.kind === "ApiKey")
        .reduce((sum, v) => sum + v.value, 0);
    const start = await reconciles();
    await vi.waitFor(async () => expect(await reconciles()).toBeGreaterThanOrEqual(start + 6), WAIT);
    expect((await readSecret(secretName)).keyId).toBe(firstKeyId);
    expect((await findKeyForAuth(h.db.pool, firstKeyId))?.key.revokedAt).toBeNull();
    expect(await listKeys(h.db.pool, { account: h.namespace })).toHaveLength(1);
  });

  it("replaces its own Secret of another type instead of retrying a PUT the API server refuses", async () => {
    h.startOperator();
    const name = h.name("typed");
    // type is immutable (422 on update): a Secret the operator once wrote, re-created with another type.
    await h.kube.secrets.create(h.namespace, {
      metadata: { name: `${name}-api-key`, labels: { "app.kubernetes.io/managed-by": "mailroom-operator" } },
      type: "example.com/other",
      stringData: { apiKey: "stale" },
    });
    await keys().create(h.namespace, apiKey(name));
    const key = await readyKey(name);
    const secret = await h.kube.secrets.get(h.namespace, `${name}-api-key`);
    expect(secret.type).toBe("Opaque");
    expect((await readSecret(`${name}-api-key`)).keyId).toBe(key.status?.keyId);
  });
});
