import { type Child, h } from "./dom.ts";

export interface DialogButton {
  label: string;
  /** What the dialog resolves with when this button closes it. */
  value: string;
  class?: string;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
let dialogs = 0;

/**
 * A modal dialog (issue 33 item 6): the native `<dialog>` shown modal makes the page behind it inert; Tab and
 * Shift+Tab are kept inside it (Chromium would otherwise leave for the browser's own UI after the last
 * control), Escape cancels, and focus returns to the control that opened it. Resolves with the value of the
 * button that closed it, or "" when cancelled.
 */
export function openDialog(
  title: string,
  body: Child[],
  buttons: DialogButton[],
  initial?: string,
): Promise<string> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  dialogs += 1;
  const titleId = `dialog-title-${dialogs}`;
  const dialog = h("dialog", { class: "dialog", "aria-labelledby": titleId });
  const controls = buttons.map((b) =>
    h(
      "button",
      {
        type: "button",
        class: b.class ?? "secondary",
        "data-value": b.value,
        onclick: () => dialog.close(b.value),
      },
      b.label,
    ),
  );
  dialog.append(h("h2", { id: titleId }, title), h("div", { class: "dialog-body" }, body));
  dialog.append(h("div", { class: "actions" }, controls));
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const inside = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = inside[0];
    const last = inside.at(-1);
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
  document.body.append(dialog);
  dialog.showModal();
  const start =
    controls.find((c) => c.dataset.value === initial) ?? dialog.querySelector<HTMLElement>(FOCUSABLE);
  start?.focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (opener?.isConnected) opener.focus();
      resolve(dialog.returnValue);
    });
  });
}

/** Asks before something that cannot be undone; Cancel has the focus, so Enter alone never confirms. */
export async function confirmDialog(title: string, text: Child, confirm: string): Promise<boolean> {
  const answer = await openDialog(
    title,
    [h("p", {}, text)],
    [
      { label: "Cancel", value: "cancel" },
      { label: confirm, value: "confirm", class: "danger" },
    ],
    "cancel",
  );
  return answer === "confirm";
}
