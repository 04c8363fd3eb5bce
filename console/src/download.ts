import type { ViewContext } from "./context.ts";
import { h } from "./dom.ts";

/**
 * Fetches with the Bearer key and hands the bytes to the browser as a download (a blob URL: the API takes no
 * cookie, so a plain link to the route could not authenticate).
 */
export async function download(ctx: ViewContext, path: string, filename: string): Promise<void> {
  const url = URL.createObjectURL(await ctx.api.blob(path));
  const link = h("a", { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
