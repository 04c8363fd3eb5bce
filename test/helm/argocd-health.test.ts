/**
 * The chart's Argo CD health script, run by a real Lua 5.1 on each state a Mailroom resource can be in. The same
 * script is run on live objects of the real API server, beside kstatus, in test/kubernetes/kstatus.test.ts.
 */
import { describe, expect, it } from "vitest";
import { argoHealth, luaAvailable, toLua } from "./support/argocd-health.ts";

const hasLua = await luaAvailable();

type Cond = { type: string; status: string; reason: string; message?: string };
const resource = (
  conditions: Cond[] | undefined,
  extra: { generation?: number; observed?: number } = {},
) => ({
  apiVersion: "mailroom.dev/v1alpha1",
  kind: "SendingDomain",
  metadata: { name: "d", namespace: "shop", generation: extra.generation ?? 1 },
  spec: { domain: "mail.example.com" },
  ...(conditions === undefined
    ? {}
    : {
        status: {
          observedGeneration: extra.observed ?? 1,
          conditions: conditions.map((c) => ({
            observedGeneration: 1,
            lastTransitionTime: "2026-01-01T00:00:00Z",
            message: "",
            ...c,
          })),
        },
      }),
});
const ready: Cond = {
  type: "Ready",
  status: "True",
  reason: "Verified",
  message: "mail.example.com is verified",
};

describe.skipIf(!hasLua)("Argo CD health script (lua5.1)", () => {
  it("Healthy when Ready, with Ready's reason and message", async () => {
    expect(await argoHealth(resource([ready, { type: "Synced", status: "True", reason: "Synced" }]))).toEqual(
      {
        status: "Healthy",
        message: "Verified: mail.example.com is verified",
      },
    );
  });

  it("Progressing before the operator wrote status, and while the latest generation is unobserved", async () => {
    expect(await argoHealth(resource(undefined))).toMatchObject({ status: "Progressing" });
    expect(await argoHealth(resource([ready], { generation: 3, observed: 2 }))).toEqual({
      status: "Progressing",
      message: "Waiting for the Mailroom operator to observe generation 3",
    });
  });

  it("Degraded when Stalled, Progressing when Reconciling, Suspended when disabled by its spec", async () => {
    const notReady = (reason: string): Cond => ({ type: "Ready", status: "False", reason, message: "why" });
    expect(
      await argoHealth(
        resource([
          notReady("Conflict"),
          { type: "Stalled", status: "True", reason: "Conflict", message: "held" },
        ]),
      ),
    ).toEqual({ status: "Degraded", message: "Conflict: held" });
    expect(
      await argoHealth(
        resource([
          notReady("VerificationPending"),
          { type: "Reconciling", status: "True", reason: "VerificationPending", message: "publish" },
        ]),
      ),
    ).toEqual({ status: "Progressing", message: "VerificationPending: publish" });
    expect(await argoHealth(resource([{ ...ready, reason: "Disabled", message: "why" }]))).toEqual({
      status: "Suspended",
      message: "Disabled: why",
    });
  });

  it("Progressing while being deleted", async () => {
    const deleting = resource([ready]);
    Object.assign(deleting.metadata, { deletionTimestamp: "2026-01-02T00:00:00Z" });
    expect(await argoHealth(deleting)).toMatchObject({ status: "Progressing" });
  });

  it("hands any text over intact (quotes, backslashes, newlines, UTF-8)", async () => {
    const message = 'a "quoted" \\ back\nslash — ünïcode';
    expect(await argoHealth(resource([{ ...ready, message }]))).toEqual({
      status: "Healthy",
      message: `Verified: ${message}`,
    });
    expect(toLua({ a: [1, null, "x"], b: null })).toBe('{["a"] = {1, nil, "x"}}');
  });
});
