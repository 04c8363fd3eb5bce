import { type Child, h } from "./dom.ts";

/** Tabs over panels built on demand (the HTML frame is only made when its tab is opened). */
export function tabs(panels: Array<{ id: string; label: string; render: () => Child }>): HTMLElement {
  const body = h("div", { class: "tab-panel", role: "tabpanel" });
  const buttons = panels.map((panel) => {
    const button = h(
      "button",
      { type: "button", role: "tab", id: `tab-${panel.id}`, "aria-selected": "false" },
      panel.label,
    );
    button.addEventListener("click", () => select(panel.id));
    return button;
  });
  const select = (id: string) => {
    const panel = panels.find((p) => p.id === id);
    if (!panel) return;
    for (const b of buttons) b.setAttribute("aria-selected", String(b.id === `tab-${id}`));
    body.replaceChildren();
    const content = panel.render();
    if (content instanceof Node) body.append(content);
    else if (content !== null && content !== undefined && content !== false) body.append(String(content));
  };
  const first = panels[0];
  if (first) select(first.id);
  return h("div", { class: "tabs" }, h("div", { role: "tablist" }, buttons), body);
}
