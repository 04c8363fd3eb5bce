import { h } from "./dom.ts";

/**
 * A value with a button that copies it: DNS records to paste into a provider, a webhook signing secret shown
 * once. Where the clipboard is refused (a page without focus, a locked-down browser) the button says so and
 * the value stays on screen to select by hand.
 */
export function copyable(value: string, label: string): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "copy secondary", "aria-label": `Copy ${label}` },
    "Copy",
  );
  button.addEventListener("click", async () => {
    await navigator.clipboard.writeText(value).then(
      () => {
        button.textContent = "Copied";
      },
      () => {
        button.textContent = "Select and copy";
      },
    );
  });
  return h("span", { class: "copyable" }, h("code", {}, value), button);
}
