import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { facts, h, show, table, time } from "../dom.ts";
import { type TemplateFields, templateForm } from "./template-form.ts";
import { templateTryOut } from "./template-try.ts";
import { templateVersionView, versionsSection } from "./template-versions.ts";

interface TemplateSummary {
  id: string;
  name: string;
  description: string | null;
  managedBy: string;
  version: number;
  updatedAt: string;
}

interface Template extends TemplateSummary, TemplateFields {
  managedByResource: string | null;
  exampleVariables: Record<string, unknown>;
  versions: Array<{ version: number; createdAt: string }>;
}

const EMPTY: TemplateFields = {
  name: "",
  description: null,
  subject: "",
  html: null,
  text: null,
  variables: null,
};

export async function templatesView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const page = await ctx.api.get<{ data: TemplateSummary[] }>(`/v1/templates${query({ limit: "100" })}`);
  if (!ctx.current()) return;
  show(
    outlet,
    h(
      "div",
      { class: "title-row" },
      h("h1", {}, "Templates"),
      h("a", { href: "#/templates/new" }, "New template"),
    ),
    page.data.length === 0
      ? h("p", { class: "empty" }, "No templates yet.")
      : table(
          ["Name", "Version", "Managed by", "Updated"],
          page.data.map((t) => [
            h("a", { href: `#/templates/${seg(t.id)}` }, t.name),
            String(t.version),
            t.managedBy,
            time(t.updatedAt),
          ]),
        ),
  );
}

/** A new template: the editor, saved with POST /v1/templates, then the template's own page. */
function newTemplateView(ctx: ViewContext, outlet: HTMLElement): void {
  const form = templateForm(EMPTY, {
    submitLabel: "Create template",
    save: async (fields) => {
      const created = await ctx.api.post<Template>("/v1/templates", fields);
      location.hash = `#/templates/${seg(created.id)}`;
      return `Created ${created.name}`;
    },
  });
  show(outlet, h("p", {}, h("a", { href: "#/templates" }, "← Templates")), h("h1", {}, "New template"), form);
  (form.querySelector("#template-name") as HTMLInputElement).focus();
}

/**
 * One template (issue 33): the editor (a save is a PATCH, which makes a new version when the content
 * changes), its versions, the preview from its example variables and a test send. A template a Template
 * resource declares is shown read-only with the resource's name: the API refuses its changes (409).
 */
export async function templateDetailView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [id = "", sub, version]: string[],
): Promise<void> {
  if (id === "new") return newTemplateView(ctx, outlet);
  if (sub === "versions" && version) return templateVersionView(ctx, outlet, id, Number(version));
  const t = await ctx.api.get<Template>(`/v1/templates/${seg(id)}`);
  if (!ctx.current()) return;
  const managed = t.managedBy === "operator";
  const resource = t.managedByResource ?? "a Template resource";
  const form = templateForm(t, {
    submitLabel: "Save",
    readOnly: managed,
    save: async (fields) => {
      const saved = await ctx.api.patch<Template>(`/v1/templates/${seg(t.id)}`, fields);
      // Drawn again for the new version (its number, versions list, preview); the message outlives it.
      await templateDetailView(ctx, outlet, [t.id]);
      const message =
        saved.version === t.version ? "Saved; the content is unchanged" : `Saved as v${saved.version}`;
      const status = outlet.querySelector(".template-form .form-status");
      if (status) status.textContent = message;
      return message;
    },
  });
  show(
    outlet,
    h("p", {}, h("a", { href: "#/templates" }, "← Templates")),
    h("h1", {}, t.name),
    managed
      ? h(
          "p",
          { class: "note", id: "managed-note" },
          `Managed by ${resource} in namespace ${ctx.key.account}: read-only here; change the resource and the operator makes the new version.`,
        )
      : null,
    facts([
      ["Id", t.id],
      ["Current version", `v${t.version}`],
      ["Managed by", managed ? resource : "API"],
      ["Updated", time(t.updatedAt)],
    ]),
    h("h2", {}, managed ? "Content" : "Edit"),
    form,
    versionsSection(ctx, t),
    templateTryOut(ctx, t),
  );
}
