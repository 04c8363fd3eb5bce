import { describe, expect, it } from "vitest";
import type { Kube } from "../../../operator/src/kube/index.ts";
import { apiKey, readyCondition, sendingDomain, template, webhookEndpoint } from "./fixtures.ts";
import type { KubeFake } from "./index.ts";
import { kubeErrorOf, useKubeFake } from "./test-harness.ts";

let fake: KubeFake;
let kube: Kube;
useKubeFake((f, k) => {
  fake = f;
  kube = k;
});

async function invalid(promise: Promise<unknown>): Promise<string> {
  const err = await kubeErrorOf(promise);
  expect(err.code).toBe(422);
  expect(err.reason).toBe("Invalid");
  return err.message;
}

// Casts stand for what a user's YAML may contain; the schema, not TypeScript, must refuse it.
const anyCr = <T>(value: unknown) => value as T;

describe("kube-fake validates custom resources against crds/", () => {
  it("rejects an invalid ApiKey with one clear message per field", async () => {
    const message = await invalid(
      kube.customResources.ApiKey.create(
        "default",
        anyCr({ ...apiKey("bad"), spec: { scopes: ["send", "send", "admin"], expiresIn: "7d" } }),
      ),
    );
    expect(message).toBe(
      'ApiKey.mailroom.dev "bad" is invalid: [spec.scopes[2]: Unsupported value: "admin": supported values: "send", "domains", "templates", "webhooks", "audit", "keys", ' +
        'spec.scopes[1]: Duplicate value: "send", spec.expiresIn: Unsupported value: "7d": supported values: "30d", "90d", "365d", "never"]',
    );
    expect(
      await invalid(
        kube.customResources.ApiKey.create("default", anyCr({ ...apiKey("none"), spec: { scopes: [] } })),
      ),
    ).toContain("spec.scopes: Invalid value: []: spec.scopes in body must NOT have fewer than 1 items");
    expect(
      await invalid(
        kube.customResources.ApiKey.create("default", anyCr({ ...apiKey("nospec"), spec: undefined })),
      ),
    ).toBe('ApiKey.mailroom.dev "nospec" is invalid: spec: Required value');
  });

  it("enforces the immutable fields (CEL self == oldSelf) on update only", async () => {
    await kube.customResources.ApiKey.create(
      "default",
      apiKey("imm", { scopes: ["send"], expiresIn: "30d" }),
    );
    expect(
      await invalid(
        kube.customResources.ApiKey.patch("default", "imm", { spec: { scopes: ["send", "domains"] } }),
      ),
    ).toContain('spec.scopes: Invalid value: "array": scopes are immutable');
    expect(
      await invalid(kube.customResources.ApiKey.patch("default", "imm", { spec: { expiresIn: "never" } })),
    ).toContain("expiresIn is immutable");
    await kube.customResources.SendingDomain.create(
      "default",
      sendingDomain("d", { domain: "a.example.com" }),
    );
    expect(
      await invalid(
        kube.customResources.SendingDomain.patch("default", "d", { spec: { domain: "b.example.com" } }),
      ),
    ).toContain('spec.domain: Invalid value: "string": domain is immutable');
    const ok = await kube.customResources.SendingDomain.patch("default", "d", { spec: { publishDNS: true } });
    expect(ok.spec.publishDNS).toBe(true);
  });

  it("compares a listType set as a set in `self == oldSelf`, as the API server's CEL does", async () => {
    await kube.customResources.ApiKey.create("default", apiKey("set", { scopes: ["send", "domains"] }));
    const reordered = await kube.customResources.ApiKey.patch("default", "set", {
      spec: { scopes: ["domains", "send"] },
    });
    expect(reordered.spec.scopes).toEqual(["domains", "send"]);
    expect(
      await invalid(kube.customResources.ApiKey.patch("default", "set", { spec: { scopes: ["send"] } })),
    ).toContain("scopes are immutable");
  });

  it("refuses to drop spec.dkim.selector, so it cannot be changed in two steps", async () => {
    const domains = kube.customResources.SendingDomain;
    await domains.create(
      "default",
      sendingDomain("sel", { dkim: { selector: "one", algorithms: ["rsa-2048"] } }),
    );
    expect(
      await invalid(domains.patch("default", "sel", [{ op: "remove", path: "/spec/dkim/selector" }])),
    ).toContain('spec.dkim: Invalid value: "object": dkim.selector is immutable');
    expect(await invalid(domains.patch("default", "sel", { spec: { dkim: { selector: "two" } } }))).toContain(
      "dkim.selector is immutable",
    );
    // Unset from the start, a selector may be added (the operator reports it if the key has another).
    await domains.create("default", sendingDomain("unset"));
    const added = await domains.patch("default", "unset", { spec: { dkim: { selector: "three" } } });
    expect(added.spec.dkim?.selector).toBe("three");
  });

  it("validates SendingDomain names, DKIM algorithms and applies nested defaults", async () => {
    const created = await kube.customResources.SendingDomain.create("default", sendingDomain("ok"));
    expect(created.spec).toEqual({
      domain: "mail.example.com",
      dkim: { algorithms: ["rsa-2048"] },
      publishDNS: false,
      reclaimPolicy: "Delete",
    });
    expect(
      await invalid(
        kube.customResources.SendingDomain.create(
          "default",
          sendingDomain("bad", { domain: "Not A Domain" }),
        ),
      ),
    ).toContain('spec.domain: Invalid value: "Not A Domain": spec.domain in body must match pattern');
    expect(
      await invalid(
        kube.customResources.SendingDomain.create(
          "default",
          sendingDomain("ed", { dkim: { algorithms: ["ed25519"] } }),
        ),
      ),
    ).toContain("rsa-2048 is required; ed25519 is an optional second signature");
    expect(
      await invalid(
        kube.customResources.SendingDomain.create(
          "default",
          sendingDomain("long", { domain: `${"a".repeat(250)}.com` }),
        ),
      ),
    ).toContain("spec.domain: Too long: may not be more than 253 bytes");
  });

  it("requires a Template body and a WebhookEndpoint http(s) URL with known events", async () => {
    expect(
      await invalid(
        kube.customResources.Template.create("default", anyCr({ ...template("t"), spec: { subject: "s" } })),
      ),
    ).toContain("spec in body must match at least one of {required: html} | {required: text}");
    const hook = await kube.customResources.WebhookEndpoint.create("default", webhookEndpoint("h"));
    expect(hook.spec.enabled).toBe(true);
    const message = await invalid(
      kube.customResources.WebhookEndpoint.create(
        "default",
        anyCr(webhookEndpoint("w", { url: "ftp://x", events: anyCr(["email.opened"]) })),
      ),
    );
    expect(message).toContain('spec.url: Invalid value: "ftp://x"');
    expect(message).toContain('spec.events[0]: Unsupported value: "email.opened"');
  });

  it("validates status writes too: condition shape and one condition per type", async () => {
    await kube.customResources.Template.create("default", template("s"));
    await kube.customResources.Template.patchStatus("default", "s", {
      status: { version: 1, conditions: [readyCondition(1)] },
    });
    const dupes = await invalid(
      kube.customResources.Template.patchStatus("default", "s", {
        status: { conditions: [readyCondition(1), readyCondition(1, "False")] },
      }),
    );
    expect(dupes).toContain('status.conditions[1]: Duplicate value: {"type":"Ready"}');
    const shape = await invalid(
      kube.customResources.Template.patchStatus("default", "s", {
        status: { conditions: [{ ...readyCondition(1), status: "Yes", lastTransitionTime: "yesterday" }] },
      }),
    );
    expect(shape).toContain('status.conditions[0].status: Unsupported value: "Yes"');
    expect(shape).toContain('status.conditions[0].lastTransitionTime: Invalid value: "yesterday"');
  });

  it("prunes unknown fields (with a warning), or rejects them under fieldValidation=Strict", async () => {
    const body = { ...apiKey("extra"), spec: { scopes: ["send"], colour: "blue" } };
    const token = fake.kubeConfig().getCurrentUser()?.token;
    const url = `${fake.url}/apis/mailroom.dev/v1alpha1/namespaces/default/apikeys`;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const strict = await fetch(`${url}?fieldValidation=Strict`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    expect(strict.status).toBe(400);
    expect(await strict.json()).toMatchObject({
      reason: "BadRequest",
      message: 'strict decoding error: unknown field "spec.colour"',
    });
    const lax = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    expect(lax.status).toBe(201);
    expect(lax.headers.get("warning")).toBe('299 - "unknown field \\"spec.colour\\""');
    expect(((await lax.json()) as { spec: object }).spec).not.toHaveProperty("colour");
  });

  it("rejects names that are not DNS subdomains and kinds that do not match the URL", async () => {
    expect(await invalid(kube.customResources.ApiKey.create("default", apiKey("Not_Valid")))).toContain(
      'metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain',
    );
    const err = await kube.customResources.ApiKey.create(
      "default",
      anyCr({ ...apiKey("k"), kind: "Template" }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 400, reason: "BadRequest" });
  });
});
