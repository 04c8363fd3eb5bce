/**
 * Keyboard use across the console (issue 33 item 6): the skip link, the heading a route lands on, and the `/`
 * shortcut to a page's search box.
 */

/** Moves focus to the page's main heading (or the main region), so a screen reader announces the new page. */
export function focusMain(outlet: HTMLElement): void {
  const target = outlet.querySelector<HTMLElement>("h1") ?? outlet;
  // Focusable by script only: the heading is not a stop in the Tab order.
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus();
}

/** What a key press inside leaves alone: fields type the character, dialogs keep the page behind them. */
function typingOrModal(target: EventTarget | null): boolean {
  const element = target instanceof Element ? target : null;
  return (
    Boolean(element?.closest("input, textarea, select, [contenteditable]")) ||
    document.querySelector("dialog[open]") !== null
  );
}

export function installKeyboard(outlet: HTMLElement): void {
  // The skip link cannot be a plain `#app` anchor: the hash is the console's route.
  document.getElementById("skip-link")?.addEventListener("click", (event) => {
    event.preventDefault();
    focusMain(outlet);
  });
  // `/` jumps to the page's search box (the element declaring the shortcut), as in GitHub and Gmail.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    const search = outlet.querySelector<HTMLElement>('[aria-keyshortcuts="/"]');
    if (!search || typingOrModal(event.target)) return;
    event.preventDefault();
    search.focus();
  });
}
