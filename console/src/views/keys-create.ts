import type { Api } from "../api.ts";
import { errorText, h, show } from "../dom.ts";

/** A key as POST /v1/keys answers it: the full key (`key`) exists only in this answer. */
export interface CreatedKey {
  keyId: string;
  name: string | null;
  scopes: string[];
  expiresAt: string | null;
  key: string;
}

const EXPIRIES: Array<[string, string]> = [
  ["30d", "in 30 days"],
  ["90d", "in 90 days"],
  ["365d", "in 365 days"],
  ["never", "never"],
];

/**
 * The full key, shown this once with a copy button and a warning: Mailroom keeps only its hash, so closing
 * the panel (or the page) loses it. The panel is focused so a screen reader announces it at once.
 */
function secretPanel(created: CreatedKey, onDone: () => void): HTMLElement {
  const value = h("input", {
    id: "new-key-value",
    readonly: true,
    value: created.key,
    "aria-label": "New API key",
    class: "block",
    spellcheck: "false",
  });
  // Not `muted`: the panel keeps its light banner colours in the dark theme too.
  const copied = h("span", { role: "status" });
  const copy = h("button", { type: "button", class: "secondary" }, "Copy key");
  copy.addEventListener("click", () => {
    value.select();
    void navigator.clipboard.writeText(created.key).then(
      () => {
        copied.textContent = "Copied.";
      },
      () => {
        copied.textContent = "Copy refused by the browser: the key is selected, copy it with the keyboard.";
      },
    );
  });
  const done = h("button", { type: "button" }, "I have stored it");
  done.addEventListener("click", onDone);
  const panel = h(
    "section",
    { id: "new-key", class: "banner", tabindex: "-1", "aria-labelledby": "new-key-title" },
    h("h2", { id: "new-key-title" }, `Key ${created.keyId} created`),
    h(
      "p",
      { role: "alert" },
      "Copy this key now and store it somewhere safe: it is shown only this once. Mailroom keeps only a hash " +
        "of it and cannot show it again; a lost key can only be revoked and replaced.",
    ),
    value,
    h("div", { class: "actions" }, copy, copied, done),
  );
  return panel;
}

/**
 * The form that makes a key: a name, the scopes (only those the signed-in key holds: the API refuses more) and
 * one of the spec's expiry choices. The new key's secret is shown in `reveal` once.
 */
export function createKeyForm(
  api: Api,
  callerScopes: string[],
  reveal: HTMLElement,
  onCreated: () => Promise<void>,
): HTMLElement {
  const name = h("input", { id: "key-name", name: "name", maxlength: "200", placeholder: "billing service" });
  const boxes = callerScopes.map((scope) =>
    h("input", { type: "checkbox", name: "scopes", value: scope, id: `key-scope-${scope}` }),
  );
  const expires = h(
    "select",
    { id: "key-expires", name: "expires" },
    ...EXPIRIES.map(([value, label]) => h("option", { value }, label)),
  );
  expires.value = "90d";
  const message = h("p", { class: "action-error", role: "status" });
  const submit = h("button", { type: "submit" }, "Create key");
  const form = h(
    "form",
    { id: "create-key", "aria-labelledby": "create-key-title" },
    h("h2", { id: "create-key-title" }, "Create a key"),
    h("label", { class: "field" }, h("span", {}, "Name"), name),
    h(
      "fieldset",
      {},
      h("legend", {}, "Scopes (at most this key's own)"),
      boxes.map((box) => h("label", { class: "toggle" }, box, box.value, " ")),
    ),
    h("label", { class: "field" }, h("span", {}, "Expires"), expires),
    h("div", { class: "actions" }, submit),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const scopes = boxes.filter((box) => box.checked).map((box) => box.value);
    message.textContent = "";
    if (scopes.length === 0) {
      message.textContent = "Choose at least one scope.";
      return;
    }
    submit.disabled = true;
    try {
      const created = await api.post<CreatedKey>("/v1/keys", {
        scopes,
        expires: expires.value,
        ...(name.value.trim() ? { name: name.value.trim() } : {}),
      });
      form.reset();
      expires.value = "90d";
      const panel = secretPanel(created, () => show(reveal));
      show(reveal, panel);
      panel.focus();
      await onCreated();
    } catch (error) {
      message.textContent = errorText(error);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
