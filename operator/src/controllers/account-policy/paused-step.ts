/**
 * The AccountPolicy step that owns SendingPaused: True while the account is paused (by the reputation guard or
 * by hand), with the reason. The annotation `mailroom.dev/resume-at` (an RFC 3339 time) resumes a pause that
 * began before it: the resume is recorded as by this AccountPolicy and releases the held mail.
 */
import { getAccount, readAccountUsage, resumeAccount } from "@mailroom/core/accounts";
import type { AccountPolicy } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { notOk, ok } from "../conditions.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { type PolicyState, policyName } from "./state.ts";

export const RESUME_ANNOTATION = "mailroom.dev/resume-at";

export const pausedStep: Step<AccountPolicy, PolicyState, StatusFields<"AccountPolicy">> = {
  name: "paused",
  condition: "SendingPaused",
  async run(ctx, resource, state) {
    const account = accountOf(resource);
    let row = await getAccount(ctx.pool, account);
    if (!row) throw new Error(`the policy step continued without the account ${account}`);
    const resumeAt = Date.parse(resource.metadata.annotations?.[RESUME_ANNOTATION] ?? "");
    if (row.paused && Number.isFinite(resumeAt) && row.paused.at.getTime() <= resumeAt) {
      const by = `AccountPolicy/${policyName(resource)}`;
      const audit = auditByResource(refOf(resource));
      const released = await resumeAccount(ctx.pool, account, { by, now: new Date(), audit });
      await ctx.events.record(
        refOf(resource),
        "Normal",
        "Resumed",
        `resumed; ${released ?? 0} held emails released`,
      );
      row = (await getAccount(ctx.pool, account)) ?? row;
    }
    const usage = await readAccountUsage(ctx.pool, account, new Date());
    const fields = {
      sendingStatus: row.sendingStatus,
      emailsToday: usage.emailsToday,
      ...(row.paused?.reason ? { pausedReason: row.paused.reason } : {}),
    };
    if (row.paused) state.paused = row.paused.reason ?? `paused by ${row.paused.by ?? "someone"}`;
    const condition = state.paused ? ok("Paused", state.paused) : notOk("Active", "the account is sending");
    return { next: "continue", condition, fields };
  },
};
