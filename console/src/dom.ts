/**
 * The console's only way to make DOM: elements from tag, attributes and children, where every string becomes
 * a text node. The console uses no HTML-parsing DOM sink (email HTML goes only to the sandboxed frame), so
 * text from the API (a subject, an SMTP reply, a header) is always shown as text, never interpreted.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

/** Links the console makes point inside the console, or to blob: downloads it created itself. */
function safeUrl(value: string): string {
  return /^(#|\/|blob:)/.test(value) ? value : "#";
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (name === "href") element.setAttribute(name, safeUrl(String(value)));
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A time as the reader's locale shows it, with the ISO value on hover. */
export function time(iso: string | null | undefined): Child {
  if (!iso) return "—";
  const at = new Date(iso);
  // With its zone (issue 33 item 5): a support person and the log may be in different ones.
  return h("time", { datetime: iso, title: iso }, at.toLocaleString(undefined, { timeZoneName: "short" }));
}

export function badge(status: string): HTMLElement {
  return h("span", { class: `badge badge-${status.replace(/[^a-z_]/g, "")}` }, status);
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** A definition list from label/value pairs, skipping absent values. */
export function facts(pairs: Array<[string, Child]>): HTMLElement {
  return h(
    "dl",
    { class: "facts" },
    pairs
      .filter(([, v]) => v !== null && v !== undefined && v !== "")
      .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
  );
}

/**
 * A wrapper that scrolls sideways is a Tab stop while (and only while) it overflows, so the keyboard can
 * scroll it too (axe's scrollable-region-focusable); a table that fits adds no stop.
 */
function scrollableByKeyboard(wrap: HTMLElement, name: string): HTMLElement {
  new ResizeObserver(() => {
    if (wrap.scrollWidth > wrap.clientWidth) {
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", `${name} (scrolls sideways)`);
    } else {
      for (const attribute of ["tabindex", "role", "aria-label"]) wrap.removeAttribute(attribute);
    }
  }).observe(wrap);
  return wrap;
}

/** A table with a header row; rows are arrays of cells. */
export function table(headings: string[], rows: Child[][], attrs: Attrs = {}): HTMLElement {
  const wrap = h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      attrs,
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headings.map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((c, i) => h("td", { "data-label": headings[i] ?? "" }, c)),
          ),
        ),
      ),
    ),
  );
  return scrollableByKeyboard(wrap, `Table of ${headings.filter(Boolean).join(", ")}`);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A button that runs `action`, disabled while it runs, showing its error next to it. */
export function actionButton(label: string, action: () => Promise<void>, attrs: Attrs = {}): HTMLElement {
  const message = h("span", { class: "action-error", role: "status" });
  const button = h("button", { type: "button", ...attrs }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    message.textContent = "";
    try {
      await action();
    } catch (error) {
      message.textContent = errorText(error);
    } finally {
      button.disabled = false;
    }
  });
  return h("span", { class: "action" }, button, message);
}
