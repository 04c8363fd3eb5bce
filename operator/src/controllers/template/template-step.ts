/**
 * The Template step that owns Synced: one operator-managed template per resource. Every run writes the spec
 * through updateTemplate, which adds a version only when the content differs, so a spec change makes a new
 * version and a resync of an unchanged spec writes nothing. Drift: a deleted template is re-created
 * (versions restart at 1); a same-named template the API owns is a Conflict, never taken over.
 */
import { createTemplate, getTemplate, getTemplateByName, updateTemplate } from "@mailroom/core/templates";
import type { Template } from "../../crds/index.ts";
import { auditByResource } from "../audit-by.ts";
import { getBinding, putBinding } from "../bindings.ts";
import { notOk, ok } from "../conditions.ts";
import { accountOf, refOf, type StatusFields } from "../kind-controller.ts";
import type { Step } from "../steps.ts";
import { templateFields, templateName } from "./status.ts";

export const templateStep: Step<Template, object, StatusFields<"Template">> = {
  name: "template",
  condition: "Synced",
  async run(ctx, resource) {
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
        return { next: "stop", condition: notOk("Conflict", message) };
      }
      current = existing;
    }
    let event: [string, string] | undefined;
    if (current) {
      const before = current.version;
      const target = { account, id: current.id, actor: "operator" as const, by: auditByResource(ref) };
      current = await updateTemplate(ctx.pool, target, content);
      if (current.version !== before)
        event = ["Updated", `template ${name} is now version ${current.version}`];
    } else {
      const by = auditByResource(ref);
      current = await createTemplate(ctx.pool, { account, ...content, managedBy: "operator", by });
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
    return { next: "continue", condition: ok("Synced"), fields: templateFields(current) };
  },
};
