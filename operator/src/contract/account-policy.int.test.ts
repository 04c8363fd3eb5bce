/** AccountPolicy controller (issue 31): limits onto the account's row, one per namespace, SendingPaused, resume. */
import { getAccount, pauseAccount } from "@mailroom/core/accounts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AccountPolicy, API_VERSION } from "../crds/index.ts";
import { type Harness, openHarness } from "./harness.ts";

const WAIT = { timeout: 10_000, interval: 50 };
let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

const policy = (name: string, spec: AccountPolicy["spec"]): AccountPolicy => ({
  apiVersion: API_VERSION,
  kind: "AccountPolicy",
  metadata: { name },
  spec,
});
type WithConditions = {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};
const cond = (o: WithConditions, type: string) => o.status?.conditions?.find((c) => c.type === type);

describe("AccountPolicy controller", () => {
  it("writes the limits onto the account, refuses a second policy, reports and resumes a pause", async () => {
    h.startOperator({ resyncMs: 300 });
    const crs = h.kube.customResources.AccountPolicy;
    await crs.create(
      h.namespace,
      policy("limits", {
        limits: { emailsPerSecond: 20, emailsPerDay: 1000, batchSize: 10 },
        logRetentionDays: 14,
        categories: ["transactional"],
        reputation: { minimumVolume: 50, pauseComplaintRate: 0.002 },
      }),
    );
    await vi.waitFor(async () => {
      const p = await crs.get(h.namespace, "limits");
      expect(cond(p, "Synced")?.status).toBe("True");
      expect(cond(p, "SendingPaused")).toMatchObject({ status: "False", reason: "Active" });
      expect(cond(p, "Ready")).toMatchObject({ status: "True", reason: "Applied" });
      expect(p.status).toMatchObject({ sendingStatus: "active", emailsToday: 0 });
    }, WAIT);
    expect(await getAccount(h.db.pool, h.namespace)).toMatchObject({
      emailsPerSecond: 20,
      dailySendLimit: 1000,
      batchSize: 10,
      retentionDays: 14,
      allowedCategories: ["transactional"],
      reputation: { minimumVolume: 50, pauseComplaintRate: 0.002 },
      policy: `${h.namespace}/limits`,
    });

    await crs.create(h.namespace, policy("second", { limits: { emailsPerDay: 1 } }));
    await vi.waitFor(async () => {
      expect(cond(await crs.get(h.namespace, "second"), "Synced")).toMatchObject({
        status: "False",
        reason: "Conflict",
      });
    }, WAIT);
    expect((await getAccount(h.db.pool, h.namespace))?.dailySendLimit).toBe(1000);

    const pausedAt = new Date(Date.now() - 1000);
    await pauseAccount(h.db.pool, h.namespace, {
      reason: "reputation: storm",
      by: "reputation-guard",
      now: pausedAt,
    });
    // The controller looks again every minute; a change of the resource makes it look now.
    await crs.patch(h.namespace, "limits", { metadata: { labels: { poke: "1" } } });
    await vi.waitFor(async () => {
      const p = await crs.get(h.namespace, "limits");
      expect(cond(p, "SendingPaused")).toMatchObject({
        status: "True",
        reason: "Paused",
        message: "reputation: storm",
      });
      expect(cond(p, "Ready")).toMatchObject({ status: "False", reason: "SendingPaused" });
      expect(p.status?.sendingStatus).toBe("paused");
    }, WAIT);

    await crs.patch(h.namespace, "limits", {
      metadata: { annotations: { "mailroom.dev/resume-at": new Date().toISOString() } },
    });
    await vi.waitFor(async () => {
      const p = await crs.get(h.namespace, "limits");
      expect(cond(p, "SendingPaused")?.status).toBe("False");
      expect(cond(p, "Ready")?.status).toBe("True");
    }, WAIT);
    expect((await getAccount(h.db.pool, h.namespace))?.resumed?.by).toBe(
      `AccountPolicy/${h.namespace}/limits`,
    );

    // Deleting the policy clears what it set; the waiting second policy then applies.
    await crs.delete(h.namespace, "limits");
    await vi.waitFor(async () => {
      expect(await getAccount(h.db.pool, h.namespace)).toMatchObject({
        emailsPerSecond: null,
        dailySendLimit: 1,
        policy: `${h.namespace}/second`,
      });
      expect(cond(await crs.get(h.namespace, "second"), "Synced")?.status).toBe("True");
    }, WAIT);
    await crs.delete(h.namespace, "second");
    await vi.waitFor(async () => {
      expect(await getAccount(h.db.pool, h.namespace)).toMatchObject({ dailySendLimit: null, policy: null });
    }, WAIT);
  });
});
