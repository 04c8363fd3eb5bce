import { ApiError, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { errorText, h, show } from "../dom.ts";
import { emailFrame } from "../email-frame.ts";

interface TemplateVersions {
  id: string;
  version: number;
  exampleVariables: Record<string, unknown>;
  versions: Array<{ version: number }>;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * The live preview and the test send of one template. The variables start as the template's example
 * variables (the API's `exampleVariables`: its schema's declared examples, else made up so they render), and
 * follow the chosen version's until the person edits them. The preview renders through the API into the
 * sandboxed email frame the log uses; the test send is a real `POST /v1/send` of the template with these
 * variables, so it needs the `send` scope.
 */
export function templateTryOut(ctx: ViewContext, t: TemplateVersions): HTMLElement[] {
  const variables = h("textarea", { id: "preview-variables", rows: 8, spellcheck: "false" });
  variables.value = pretty(t.exampleVariables);
  let edited = false;
  const version = h(
    "select",
    { id: "preview-version" },
    t.versions.map((v) =>
      h("option", { value: String(v.version), selected: v.version === t.version }, `v${v.version}`),
    ),
  );
  const preview = h("div", { class: "preview", id: "preview", "aria-live": "polite" });
  const parsed = (): Record<string, unknown> =>
    JSON.parse(variables.value || "{}") as Record<string, unknown>;

  let pending = 0;
  const render = async () => {
    const mine = ++pending;
    let values: Record<string, unknown>;
    try {
      values = parsed();
    } catch (error) {
      show(preview, h("p", { class: "error" }, `Variables are not JSON: ${errorText(error)}`));
      return;
    }
    try {
      const out = await ctx.api.post<{ subject: string; html?: string; text?: string }>(
        `/v1/templates/${seg(t.id)}/render`,
        { variables: values, version: Number(version.value) },
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
  variables.addEventListener("input", () => {
    edited = true;
    soon();
  });
  version.addEventListener("change", async () => {
    // Another version may declare other variables: start from its examples unless the person wrote their own.
    if (!edited) {
      try {
        const chosen = await ctx.api.get<{ exampleVariables: Record<string, unknown> }>(
          `/v1/templates/${seg(t.id)}/versions/${seg(version.value)}`,
        );
        if (!ctx.current()) return;
        variables.value = pretty(chosen.exampleVariables);
      } catch (error) {
        show(preview, h("p", { class: "error", role: "alert" }, errorText(error)));
        return;
      }
    }
    soon();
  });
  void render();

  return [
    h("h2", { id: "preview-heading" }, "Preview"),
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
    testSend(ctx, t.id, () => ({ version: Number(version.value), variables: parsed() })),
  ];
}

/** A test send to an address the person types, through POST /v1/send; hidden behind a reason without `send`. */
function testSend(
  ctx: ViewContext,
  id: string,
  template: () => { version: number; variables: Record<string, unknown> },
): HTMLElement {
  const heading = h("h2", { id: "test-send-heading" }, "Send a test");
  if (!ctx.key.scopes.includes("send")) {
    return h(
      "section",
      { "aria-labelledby": "test-send-heading" },
      heading,
      h(
        "p",
        { class: "muted", id: "test-send-unavailable" },
        `A test send goes through POST /v1/send, which needs the send scope; this key has ${ctx.key.scopes.join(", ")}.`,
      ),
    );
  }
  const from = h("input", { id: "test-from", type: "text", placeholder: "Acme <hello@acme.example>" });
  const to = h("input", { id: "test-to", type: "email", placeholder: "you@example.com" });
  const result = h("p", { id: "test-send-result", role: "status" });
  const form = h(
    "form",
    { class: "inline-form test-send", novalidate: true, "aria-labelledby": "test-send-heading" },
    h("label", { class: "field" }, h("span", {}, "From"), from),
    h("label", { class: "field" }, h("span", {}, "To"), to),
    h("button", { type: "submit" }, "Send test"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show(result);
    result.classList.remove("error");
    const button = form.querySelector("button") as HTMLButtonElement;
    button.disabled = true;
    try {
      const sent = await ctx.api.post<{ status: string; messageId: string }>("/v1/send", {
        from: from.value.trim(),
        to: to.value.trim(),
        template: { id, ...template() },
      });
      show(
        result,
        `Test ${sent.status}: `,
        h("a", { href: `#/emails/${seg(sent.messageId)}`, id: "test-send-email" }, sent.messageId),
      );
    } catch (error) {
      result.classList.add("error");
      show(result, error instanceof ApiError ? `${error.message} (${error.code})` : errorText(error));
    } finally {
      button.disabled = false;
    }
  });
  return h("section", { "aria-labelledby": "test-send-heading" }, heading, form, result);
}
