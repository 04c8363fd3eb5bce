import { h } from "./dom.ts";

/**
 * "← First page" and "Next page →" for a list paged by cursor (the last item's id as `after`): `cursors` holds
 * the cursor of each page after the first, so the first page is an empty stack; `load` draws the list again.
 */
export function pager(
  cursors: string[],
  page: { hasMore: boolean; lastCursor: string | undefined },
  load: () => Promise<void>,
): HTMLElement {
  const more = h("button", { type: "button", class: "secondary", disabled: !page.hasMore }, "Next page →");
  more.addEventListener("click", () => {
    if (page.lastCursor) cursors.push(page.lastCursor);
    void load();
  });
  const first = h(
    "button",
    { type: "button", class: "secondary", disabled: cursors.length === 0 },
    "← First page",
  );
  first.addEventListener("click", () => {
    cursors.length = 0;
    void load();
  });
  return h("div", { class: "pager" }, first, more);
}
