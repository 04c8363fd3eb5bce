import { type InlinePart, withInlineImages } from "./cid-images.ts";
import { h } from "./dom.ts";
import { inertHtml } from "./inert-html.ts";

/**
 * The only place email HTML is shown: an iframe with an empty `sandbox` (no scripts, forms, popups, plugins,
 * top navigation, and an opaque origin, so nothing in it can reach the console's origin), filled through
 * `srcdoc`, its remote references removed first (inert-html.ts). A CSP at the top of the document blocks all network by default (remote images, fonts, CSS
 * imports, prefetches); `remoteImages` allows images only. The console's own CSP is inherited by the frame
 * as well, so inline scripts stay blocked even if the sandbox were lifted. CSS cannot leave the frame's box.
 */
export function emailFrame(html: string, remoteImages: boolean): HTMLIFrameElement {
  const images = remoteImages ? "data: https: http:" : "data:";
  const policy = `default-src 'none'; img-src ${images}; style-src 'unsafe-inline'; font-src data:; form-action 'none'`;
  const frame = h("iframe", {
    class: "email-frame",
    title: "Email HTML (sandboxed)",
    sandbox: "",
    referrerpolicy: "no-referrer",
  });
  // The markup itself carries no remote reference (inertHtml): the CSP is the second line, not the first.
  frame.srcdoc =
    `<!doctype html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${policy}">` +
    `<meta http-equiv="x-dns-prefetch-control" content="off">` +
    `<meta name="referrer" content="no-referrer"></head><body>${inertHtml(html, remoteImages)}</body></html>`;
  return frame;
}

/** The email's parts `cid:` URLs may name, and how to fetch one's bytes (with the Bearer key). */
export interface InlineParts {
  parts: InlinePart[];
  fetchPart(index: number): Promise<Blob>;
}

/** The frame with its remote-images toggle (off by default, per email shown); inline images written in first. */
export function emailHtmlPanel(source: string, inline?: InlineParts): HTMLElement {
  let html = source;
  const toggle = h("input", { type: "checkbox", id: "remote-images" });
  const holder = h("div", { class: "frame-holder" });
  const render = () => holder.replaceChildren(emailFrame(html, toggle.checked));
  toggle.addEventListener("change", render);
  // With parts to inline, the frame waits for them: shown before, each `cid:` would be a blocked request.
  if (inline?.parts.some((p) => p.contentId)) {
    holder.append(h("p", { class: "muted" }, "Loading inline images…"));
    void withInlineImages(source, inline.parts, inline.fetchPart).then((resolved) => {
      html = resolved;
      render();
    });
  } else render();
  return h(
    "div",
    {},
    h(
      "label",
      { class: "toggle" },
      toggle,
      " Load remote images (lets the sender see that, when and where the email was opened)",
    ),
    holder,
  );
}
