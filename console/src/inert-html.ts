/**
 * Email HTML made inert before the browser sees it (issue 26): every URL that would make the browser reach
 * out, even only to resolve a name (an `<iframe src>`, a `<link rel=dns-prefetch>`, an anchor Chromium
 * prefetches, a CSS `url()`), is removed from the markup, not left for the frame's CSP to block, because a
 * DNS lookup happens before a CSP check and tells the sender the email was opened. Parsed with DOMParser,
 * whose documents have no browsing context: nothing in them is fetched, resolved or run.
 */

// Attributes that hold URLs the browser may fetch, prefetch or resolve.
const URL_ATTRIBUTES = [
  "src",
  "srcset",
  "href",
  "xlink:href",
  "action",
  "formaction",
  "poster",
  "background",
  "data",
  "codebase",
  "archive",
  "longdesc",
  "lowsrc",
  "dynsrc",
  "ping",
  "manifest",
  "imagesrcset",
  "cite",
  "profile",
  "usemap",
];
// Elements whose only purpose here would be to fetch, navigate or run: removed with their content.
const DROPPED =
  "script, base, meta[http-equiv], link, noscript, object, embed, applet, frame, frameset, portal";
// A URL that stays inside the message: an inline `data:` image, a `cid:` part, a fragment.
const LOCAL = /^\s*(data:|cid:|#)/i;
const CSS_URL = /url\(\s*(['"]?)(.*?)\1\s*\)/gi;
const CSS_IMPORT = /@import\b[^;]*;?/gi;

function inertCss(css: string, remoteImages: boolean): string {
  return css
    .replace(CSS_IMPORT, "")
    .replace(CSS_URL, (whole, _q: string, url: string) =>
      LOCAL.test(url) || (remoteImages && /^\s*https?:/i.test(url)) ? whole : "none",
    );
}

/**
 * The email's HTML with every remote reference removed; with `remoteImages`, an `<img>`'s http(s) `src` and
 * `srcset` and CSS images stay (the viewer asked for them). A removed attribute is kept as `data-blocked-*`
 * so the markup still shows what the sender linked to.
 */
export function inertHtml(html: string, remoteImages: boolean): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  for (const element of doc.querySelectorAll(DROPPED)) element.remove();
  for (const element of doc.querySelectorAll("*")) {
    const keepImage = remoteImages && element.localName === "img";
    for (const name of URL_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value === null || (LOCAL.test(value) && name !== "srcset")) continue;
      if (keepImage && (name === "src" || name === "srcset") && /^\s*https?:/i.test(value)) continue;
      element.removeAttribute(name);
      element.setAttribute(`data-blocked-${name.replace(":", "-")}`, value);
    }
    const style = element.getAttribute("style");
    if (style !== null) element.setAttribute("style", inertCss(style, remoteImages));
  }
  for (const style of doc.querySelectorAll("style")) {
    style.textContent = inertCss(style.textContent ?? "", remoteImages);
  }
  // The head's styles travel with the body (the frame writes its own head).
  const styles = [...doc.head.querySelectorAll("style")].map((style) => style.outerHTML).join("");
  return styles + doc.body.innerHTML;
}
