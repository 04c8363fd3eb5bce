/**
 * Template: one operator-managed template per resource. Every reconcile writes the spec through
 * updateTemplate, which adds a version only when the content differs, so a spec change makes a new version
 * and a resync of an unchanged spec writes nothing. Drift: a deleted template is re-created (versions
 * restart at 1); a same-named template the API owns is a Conflict, never taken over.
 */
import { createTemplate, getTemplate, getTemplateByName, updateTemplate } from "@mailroom/core/templates";
import type { Template } from "../../crds/index.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import type { ReconcileContext } from "../context.ts";
import { accountOf, type ReconcileOutcome, refOf, type StatusFields } from "../kind-controller.ts";
import { templateFields, templateName } from "./status.ts";

type Outcome = ReconcileOutcome<StatusFields<"Template">>;

export async function reconcileTemplate(ctx: ReconcileContext, resource: Template): Promise<Outcome> {
  const ref = refOf(resource);
  const account = accountOf(resource);
  const name = templateName(resource);
  const content = {
    name,
    subject: resource.spec.subject,
    html: resource.spec.html ?? null,
    text: resource.spec.text ?? null,
    variables: (resource.spec.variablesSchema as Record<string, unknown> | undefined) ?? null,
  };
  const binding = await getBinding(ctx.pool, "Template", account, ref.name);
  let current =
    binding?.uid === ref.uid && binding.targetId
      ? await getTemplate(ctx.pool, account, binding.targetId)
      : undefined;
  if (!current) {
    const existing = await getTemplateByName(ctx.pool, account, name);
    if (existing && existing.managedBy !== "operator") {
      const message = `a template named ${name} exists in ${account} and is managed through the API`;
      return { fields: {}, ready: notOk("Conflict", message), synced: notOk("Conflict", message) };
    }
    current = existing;
  }
  let event: [string, string] | undefined;
  if (current) {
    const before = current.version;
    current = await updateTemplate(ctx.pool, { account, id: current.id, actor: "operator" }, content);
    if (current.version !== before) event = ["Updated", `template ${name} is now version ${current.version}`];
  } else {
    current = await createTemplate(ctx.pool, { account, ...content, managedBy: "operator" });
    event = ["Created", `created template ${name}`];
  }
  await putBinding(ctx.pool, {
    kind: "Template",
    namespace: account,
    name: ref.name,
    uid: ref.uid,
    targetId: current.id,
    claim: null,
  });
  if (event) await ctx.events.record(ref, "Normal", event[0], event[1]);
  return { fields: templateFields(current), ready: ok("Published"), synced: ok("Synced") };
}
