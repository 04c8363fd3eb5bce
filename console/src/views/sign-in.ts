import { errorText, h, show } from "../dom.ts";
import { oidcSettings, startOidcSignIn } from "../oidc.ts";

/**
 * Asks for an API key; `signIn` checks it against the API and keeps it for this tab only. Where the install
 * has a provider (ADR 0063), a person may sign in with it instead; `notice` tells why the last attempt failed.
 */
export function signInView(
  outlet: HTMLElement,
  signIn: (key: string) => Promise<void>,
  notice?: string,
): void {
  const input = h("input", {
    id: "api-key",
    name: "api-key",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    placeholder: "mrk_…",
  });
  const message = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "sign-in", novalidate: true },
    h("h1", {}, "Sign in"),
    h(
      "p",
      { class: "muted" },
      "Paste an API key. It stays in this browser tab (session storage) and is sent only as the Bearer header " +
        "to this Mailroom; closing the tab forgets it. Create one with ",
      h("code", {}, "npm exec --no -- mailroom keys create --scopes send,domains,templates,webhooks"),
      ".",
    ),
    h("label", { for: "api-key" }, "API key"),
    input,
    h("button", { type: "submit" }, "Sign in"),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    const key = input.value.trim();
    if (!key) {
      message.textContent = "Enter an API key.";
      return;
    }
    try {
      await signIn(key);
    } catch (error) {
      message.textContent = `Sign-in failed: ${errorText(error)}`;
    }
  });
  message.textContent = notice ?? "";
  show(outlet, form);
  input.focus();
  void oidcSettings().then((settings) => {
    if (!settings.enabled) return;
    const button = h("button", { type: "button", id: "oidc-sign-in" }, "Sign in with your company account");
    button.addEventListener("click", () => void startOidcSignIn(settings));
    form.insertBefore(button, form.children[1] ?? null);
  });
}
