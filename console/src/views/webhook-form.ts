import { ApiError } from "../api.ts";
import { copyable } from "../copy.ts";
import { openDialog } from "../dialog.ts";
import { errorText, h } from "../dom.ts";

/** An endpoint as GET /v1/webhooks/:id answers. */
export interface Endpoint {
  id: string;
  name: string | null;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  managedBy: "api" | "operator";
  createdAt: string;
  updatedAt: string;
}

/** Who may change an endpoint: the API, or (read-only here) the operator's WebhookEndpoint resource. */
export function managedLabel(e: Endpoint): string {
  return e.managedBy === "operator" ? `WebhookEndpoint ${e.name ?? "?"}` : "the API (this console)";
}

/** A signing secret as the API returns it, once: the console keeps no copy once the dialog is closed. */
export async function showSecretOnce(secret: string, note: string): Promise<void> {
  await openDialog(
    "Signing secret",
    [
      h("p", {}, note, " It is shown only now: copy it into the receiver's configuration."),
      h("div", { id: "new-secret" }, copyable(secret, "signing secret")),
    ],
    [{ label: "Done", value: "done" }],
  );
}

/** What a create or a PATCH of /v1/webhooks sends from the form. */
export interface EndpointFields {
  url: string;
  events: string[];
  description: string | null;
  enabled?: boolean;
}

export interface EndpointForm {
  form: HTMLFormElement;
  values(): EndpointFields;
  /** Shows an API error next to the field it names (`url: …`), else under the form; clears the others. */
  showError(error: unknown): void;
  clearErrors(): void;
}

type Field = "url" | "events" | "description" | "form";

// The SSRF guard's refusals (core/src/webhooks/ssrf.ts, core/src/net): said plainly, with what would allow it.
const NEVER = /metadata|link-local|reserved/;
const PRIVATE = /private or loopback/;

function plainUrlError(text: string): string {
  if (NEVER.test(text)) {
    return `Refused: ${text}. Mailroom never sends webhooks to cloud metadata, link-local or reserved addresses.`;
  }
  if (PRIVATE.test(text)) {
    return (
      `Refused: ${text}. Mailroom sends webhooks only to public addresses, unless the installation allows ` +
      "this range (MAILROOM_WEBHOOK_ALLOWED_CIDRS)."
    );
  }
  return text;
}

function fieldError(id: string): HTMLElement {
  return h("p", { id, class: "field-error", role: "status" });
}

/**
 * The endpoint form, for a new endpoint (with `enabled`) and for an edit (`initial`). Validation is the API's:
 * its `{error, message}` names the field (`url: …`, `events[0]: …`), and the message is shown beside it.
 */
export function endpointForm(
  eventTypes: readonly string[],
  prefix: string,
  initial?: EndpointFields,
): EndpointForm {
  const url = h("input", {
    id: `${prefix}-url`,
    name: "url",
    type: "url",
    placeholder: "https://hooks.example.com/mailroom",
    "aria-describedby": `${prefix}-url-error`,
  });
  url.value = initial?.url ?? "";
  const chosen = new Set(initial?.events ?? []);
  const boxes = eventTypes.map((type) =>
    h("input", { type: "checkbox", name: "events", value: type, checked: chosen.has(type) }),
  );
  const description = h("input", { id: `${prefix}-description`, name: "description", maxlength: 1024 });
  description.value = initial?.description ?? "";
  const enabled = h("input", { type: "checkbox", id: `${prefix}-enabled`, name: "enabled", checked: true });
  const errors: Record<Field, HTMLElement> = {
    url: fieldError(`${prefix}-url-error`),
    events: fieldError(`${prefix}-events-error`),
    description: fieldError(`${prefix}-description-error`),
    form: h("p", { class: "error", role: "alert" }),
  };
  description.setAttribute("aria-describedby", `${prefix}-description-error`);
  const events = h(
    "fieldset",
    { class: "checks", "aria-describedby": `${prefix}-events-error` },
    h("legend", {}, "Events (none ticked: every event)"),
    boxes.map((box) => h("label", { class: "toggle" }, box, box.value)),
  );
  const form = h(
    "form",
    { class: "endpoint-form", novalidate: true },
    h("label", { class: "field", for: url.id }, h("span", {}, "URL"), url),
    errors.url,
    events,
    errors.events,
    h("label", { class: "field", for: description.id }, h("span", {}, "Description"), description),
    errors.description,
    initial ? null : h("label", { class: "toggle" }, enabled, "Enabled"),
    h("button", { type: "submit" }, initial ? "Save changes" : "Add endpoint"),
    errors.form,
  );
  const controls: Partial<Record<Field, HTMLElement>> = { url, description };

  const clearErrors = () => {
    for (const [field, element] of Object.entries(errors)) {
      element.textContent = "";
      controls[field as Field]?.removeAttribute("aria-invalid");
    }
  };
  return {
    form,
    values: () => ({
      url: url.value.trim(),
      events: boxes.filter((b) => b.checked).map((b) => b.value),
      description: description.value.trim() || null,
      ...(initial ? {} : { enabled: enabled.checked }),
    }),
    clearErrors,
    showError(error) {
      clearErrors();
      const message = errorText(error);
      const named =
        error instanceof ApiError ? /^(url|events|description)\b[^:]*: (.*)$/s.exec(message) : null;
      const field = (named?.[1] ?? "form") as Field;
      const text = named?.[2] ?? message;
      errors[field].textContent = field === "url" ? plainUrlError(text) : text;
      const control = controls[field];
      control?.setAttribute("aria-invalid", "true");
      control?.focus();
    },
  };
}
