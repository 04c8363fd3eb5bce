import { ApiError } from "../api.ts";
import { errorText, h } from "../dom.ts";

/** What a template's editor edits: the fields POST and PATCH /v1/templates take. */
export interface TemplateFields {
  name: string;
  description: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  variables: Record<string, unknown> | null;
}

const FIELDS = ["name", "description", "subject", "html", "text", "variables"] as const;
type Field = (typeof FIELDS)[number];

const LABELS: Record<Field, string> = {
  name: "Name",
  description: "Description",
  subject: "Subject (Handlebars)",
  html: "HTML (Handlebars, values escaped)",
  text: "Text (Handlebars)",
  variables: "Variables schema (JSON Schema; its examples fill the preview)",
};

/**
 * The field an API error names: the API's messages start with it (`subject: …`, `html line 3, column 9: …`,
 * `variables.examples[0]: …`), so the message can be shown next to the field it is about.
 */
export function fieldOf(message: string): Field | undefined {
  const head = /^([a-z]+)/.exec(message)?.[1];
  return FIELDS.find((field) => field === head);
}

/**
 * The editor: one labelled control per field, each with its own error line (the API's `{error, message}`
 * shown beside the field it names, the field marked invalid and focused). `readOnly` shows the same fields
 * without a way to save, for a template a Template resource declares. `save` returns what to announce.
 */
export function templateForm(
  initial: TemplateFields,
  options: { submitLabel: string; readOnly?: boolean; save(fields: TemplateFields): Promise<string> },
): HTMLFormElement {
  const controls = {} as Record<Field, HTMLInputElement | HTMLTextAreaElement>;
  const errors = {} as Record<Field, HTMLElement>;
  const values: Record<Field, string> = {
    name: initial.name,
    description: initial.description ?? "",
    subject: initial.subject,
    html: initial.html ?? "",
    text: initial.text ?? "",
    variables: initial.variables ? JSON.stringify(initial.variables, null, 2) : "",
  };
  const rows = FIELDS.map((field) => {
    const id = `template-${field}`;
    const multiline = field === "html" || field === "text" || field === "variables";
    const attrs = {
      id,
      name: field,
      spellcheck: "false",
      readonly: options.readOnly === true,
      "aria-describedby": `${id}-error`,
    };
    const control = multiline
      ? h("textarea", { ...attrs, rows: field === "html" ? 10 : 6 })
      : h("input", attrs);
    control.value = values[field];
    controls[field] = control;
    errors[field] = h("p", { class: "field-error", id: `${id}-error` });
    return h("div", { class: "field" }, h("label", { for: id }, LABELS[field]), control, errors[field]);
  });
  const status = h("p", { class: "form-status", role: "status" });
  const element = h(
    "form",
    { class: "template-form", novalidate: true, "aria-label": "Template" },
    rows,
    options.readOnly ? null : h("button", { type: "submit" }, options.submitLabel),
    status,
  );

  const clear = () => {
    status.textContent = "";
    status.classList.remove("error");
    for (const field of FIELDS) {
      errors[field].textContent = "";
      controls[field].removeAttribute("aria-invalid");
    }
  };
  const fail = (message: string, field: Field | undefined) => {
    if (!field) {
      status.textContent = message;
      status.classList.add("error");
      return;
    }
    errors[field].textContent = message;
    controls[field].setAttribute("aria-invalid", "true");
    controls[field].focus();
  };

  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (options.readOnly) return;
    clear();
    const text = (field: Field) => controls[field].value;
    const optional = (field: Field) => (text(field) === "" ? null : text(field));
    let variables: Record<string, unknown> | null = null;
    if (text("variables").trim() !== "") {
      try {
        variables = JSON.parse(text("variables")) as Record<string, unknown>;
      } catch (error) {
        return fail(`variables: not JSON: ${errorText(error)}`, "variables");
      }
    }
    const button = element.querySelector("button[type=submit]") as HTMLButtonElement;
    button.disabled = true;
    try {
      status.textContent = await options.save({
        name: text("name"),
        description: optional("description"),
        subject: text("subject"),
        html: optional("html"),
        text: optional("text"),
        variables,
      });
    } catch (error) {
      const message = error instanceof ApiError ? `${error.message} (${error.code})` : errorText(error);
      // A name already taken is a conflict whose message starts with a sentence, not the field.
      fail(message, error instanceof ApiError && error.code === "conflict" ? "name" : fieldOf(message));
    } finally {
      button.disabled = false;
    }
  });
  return element;
}
