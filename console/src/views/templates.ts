import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { errorText, facts, h, show, table, time } from "../dom.ts";
import { emailFrame } from "../email-frame.ts";

interface TemplateSummary {
  id: string;
  name: string;
  description: string | null;
  managedBy: string;
  version: number;
  updatedAt: string;
}

interface Template extends TemplateSummary {
  subject: string;
  html: string | null;
  text: string | null;
  variables: Record<string, unknown> | null;
  versions: Array<{ version: number; createdAt: string }>;
}

export async function templatesView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const page = await ctx.api.get<{ data: TemplateSummary[] }>(`/v1/templates${query({ limit: "100" })}`);
  if (!ctx.current()) return;
  show(
    outlet,
    h("h1", {}, "Templates"),
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

/** Example variables from the template's JSON Schema, so the preview starts from something that renders. */
function exampleVariables(schema: Record<string, unknown> | null): string {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: string; examples?: unknown[] }>;
  const example = Object.fromEntries(
    Object.entries(properties).map(([name, p]) => [
      name,
      p.examples?.[0] ?? (p.type === "number" ? 1 : name),
    ]),
  );
  return JSON.stringify(example, null, 2);
}

/** One template: its versions, and a live preview that renders through the API as the variables change. */
export async function templateDetailView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [id = ""]: string[],
): Promise<void> {
  const t = await ctx.api.get<Template>(`/v1/templates/${seg(id)}`);
  if (!ctx.current()) return;
  const variables = h("textarea", {
    id: "preview-variables",
    rows: 8,
    spellcheck: "false",
    "aria-label": "Variables (JSON)",
  });
  variables.value = exampleVariables(t.variables);
  const version = h(
    "select",
    { id: "preview-version", "aria-label": "Version" },
    t.versions.map((v) =>
      h("option", { value: String(v.version), selected: v.version === t.version }, `v${v.version}`),
    ),
  );
  const preview = h("div", { class: "preview", id: "preview", "aria-live": "polite" });
  let pending = 0;
  const render = async () => {
    const mine = ++pending;
    let parsed: unknown;
    try {
      parsed = JSON.parse(variables.value || "{}");
    } catch (error) {
      show(preview, h("p", { class: "error" }, `Variables are not JSON: ${errorText(error)}`));
      return;
    }
    try {
      const out = await ctx.api.post<{ subject: string; html?: string; text?: string }>(
        `/v1/templates/${seg(t.id)}/render`,
        { variables: parsed, version: Number(version.value) },
      );
      if (mine !== pending || !ctx.current()) return;
      show(
        preview,
        h("p", {}, h("strong", {}, "Subject: "), h("span", { id: "preview-subject" }, out.subject)),
        out.html !== undefined ? emailFrame(out.html, false) : null,
        out.text !== undefined ? h("pre", { class: "text-part" }, out.text) : null,
      );
    } catch (error) {
      if (mine === pending) show(preview, h("p", { class: "error", role: "alert" }, errorText(error)));
    }
  };
  let debounce = 0;
  const soon = () => {
    clearTimeout(debounce);
    debounce = window.setTimeout(() => void render(), 300);
  };
  variables.addEventListener("input", soon);
  version.addEventListener("change", soon);
  show(
    outlet,
    h("p", {}, h("a", { href: "#/templates" }, "← Templates")),
    h("h1", {}, t.name),
    t.description ? h("p", { class: "muted" }, t.description) : null,
    facts([
      ["Id", t.id],
      ["Current version", String(t.version)],
      ["Managed by", t.managedBy],
      ["Updated", time(t.updatedAt)],
    ]),
    h("h2", {}, "Versions"),
    table(
      ["Version", "Created"],
      t.versions.map((v) => [`v${v.version}`, time(v.createdAt)]),
    ),
    h("h2", {}, "Live preview"),
    h(
      "div",
      { class: "preview-grid" },
      h(
        "div",
        {},
        h("label", { class: "field" }, h("span", {}, "Version"), version),
        h("label", { class: "field" }, h("span", {}, "Variables (JSON)"), variables),
      ),
      preview,
    ),
  );
  await render();
}
