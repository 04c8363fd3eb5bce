import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { diffLines } from "../diff.ts";
import { actionButton, type Child, errorText, facts, h, show, table, time } from "../dom.ts";

/** A stored version as GET /v1/templates/{id}/versions/{version} returns it. */
interface Version {
  version: number;
  subject: string;
  html: string | null;
  text: string | null;
  variables: Record<string, unknown> | null;
  createdAt: string;
}

interface TemplateInfo {
  id: string;
  name: string;
  version: number;
  managedBy: string;
  versions: Array<{ version: number; createdAt: string }>;
}

const PARTS = ["subject", "html", "text", "variables"] as const;
const partText = (v: Version, part: (typeof PARTS)[number]) =>
  part === "variables" ? (v.variables ? JSON.stringify(v.variables, null, 2) : "") : (v[part] ?? "");

/** Each part of two versions: unchanged, or its lines as a diff (signs as well as colour mark the change). */
function comparison(from: Version, to: Version): HTMLElement {
  return h(
    "div",
    { id: "version-diff" },
    h("p", {}, `Changes from v${from.version} to v${to.version}`),
    PARTS.map((part) => {
      const before = partText(from, part);
      const after = partText(to, part);
      if (before === after) return h("p", { class: "muted" }, `${part}: unchanged`);
      return [
        h("h3", {}, `${part}: changed`),
        h(
          "pre",
          { class: "text-part diff", "data-part": part },
          diffLines(before.split("\n"), after.split("\n")).map(([sign, line]) =>
            h("span", { class: sign === "+" ? "ins" : sign === "-" ? "del" : "" }, `${sign} ${line}\n`),
          ),
        ),
      ];
    }),
  );
}

const versionPath = (id: string, version: number) => `/v1/templates/${seg(id)}/versions/${version}`;

/** The versions of a template: each one's page, and a comparison of any two. */
export function versionsSection(ctx: ViewContext, t: TemplateInfo): Child[] {
  const pick = (id: string, label: string, selected: number) =>
    h(
      "label",
      { class: "field" },
      h("span", {}, label),
      h(
        "select",
        { id },
        t.versions.map((v) =>
          h("option", { value: String(v.version), selected: v.version === selected }, `v${v.version}`),
        ),
      ),
    );
  const result = h("div", { "aria-live": "polite" });
  const compare = h(
    "form",
    { class: "inline-form", novalidate: true, "aria-label": "Compare versions" },
    pick("compare-from", "From", Math.max(1, t.version - 1)),
    pick("compare-to", "To", t.version),
    h("button", { type: "submit", class: "secondary" }, "Compare"),
  );
  compare.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = (id: string) => Number((compare.querySelector(`#${id}`) as HTMLSelectElement).value);
    try {
      const [from, to] = await Promise.all([
        ctx.api.get<Version>(versionPath(t.id, value("compare-from"))),
        ctx.api.get<Version>(versionPath(t.id, value("compare-to"))),
      ]);
      if (ctx.current()) show(result, comparison(from, to));
    } catch (error) {
      show(result, h("p", { class: "error", role: "alert" }, errorText(error)));
    }
  });
  return [
    h("h2", {}, "Versions"),
    table(
      ["Version", "Created"],
      [...t.versions]
        .reverse()
        .map((v) => [
          h("a", { href: `#/templates/${seg(t.id)}/versions/${v.version}` }, `v${v.version}`),
          h("span", {}, time(v.createdAt), v.version === t.version ? " (current)" : ""),
        ]),
      { class: "versions" },
    ),
    t.versions.length > 1 ? [compare, result] : null,
  ];
}

/** One stored version, read-only, with a way to make its content current again (as a new version). */
export async function templateVersionView(
  ctx: ViewContext,
  outlet: HTMLElement,
  id: string,
  number: number,
): Promise<void> {
  const [t, v] = await Promise.all([
    ctx.api.get<TemplateInfo>(`/v1/templates/${seg(id)}`),
    ctx.api.get<Version>(versionPath(id, number)),
  ]);
  if (!ctx.current()) return;
  const back = `#/templates/${seg(id)}`;
  const restore = async () => {
    const { subject, html, text, variables } = v;
    await ctx.api.patch(`/v1/templates/${seg(id)}`, { subject, html, text, variables });
    location.hash = back;
  };
  show(
    outlet,
    h("p", {}, h("a", { href: back }, `← ${t.name}`)),
    h("h1", {}, `${t.name} v${v.version}`),
    facts([
      ["Created", time(v.createdAt)],
      ["Current version", `v${t.version}`],
    ]),
    v.version === t.version
      ? h("p", { class: "muted" }, "This is the current version.")
      : t.managedBy === "operator"
        ? h("p", { class: "muted" }, "Managed by a Template resource: restore it there.")
        : actionButton(`Restore v${v.version} as v${t.version + 1}`, restore),
    PARTS.map((part) => [
      h("h2", {}, part),
      h("pre", { class: "text-part", "data-part": part }, partText(v, part) || "(none)"),
    ]),
  );
}
