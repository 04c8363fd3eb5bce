/**
 * Inline `cid:` images (issue 33): the frame's CSP allows `data:` images only (no request ever leaves the
 * frame, and no cookie-less route could be reached from its opaque origin anyway: the API takes only the
 * Bearer key). So the console fetches each image part the HTML names with the key and writes it into the
 * markup as a `data:` URL before the frame sees it. Only `image/*` parts are inlined; anything else named by a
 * `cid:` stays a dead reference.
 */

export interface InlinePart {
  contentId: string | null;
  contentType: string;
}

// A `cid:` URL in an attribute or a CSS `url()`: up to the quote, space, bracket or parenthesis that ends it.
const CID = /cid:([^"'\s)<>]+)/gi;

function dataUrl(blob: Blob, type: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(new Blob([blob], { type }));
  });
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The HTML with each `cid:` URL that names an image part replaced by that part as a `data:` URL; `fetchPart`
 * gets a part's bytes by its index in `parts`. A part that cannot be fetched stays a `cid:` reference.
 */
export async function withInlineImages(
  html: string,
  parts: InlinePart[],
  fetchPart: (index: number) => Promise<Blob>,
): Promise<string> {
  const named = new Set([...html.matchAll(CID)].map((m) => decoded(m[1] ?? "").toLowerCase()));
  const urls = new Map<string, string>();
  await Promise.all(
    parts.map(async (part, index) => {
      const id = part.contentId?.toLowerCase();
      if (!id || !named.has(id) || !/^image\//i.test(part.contentType)) return;
      const url = await fetchPart(index)
        .then((blob) => dataUrl(blob, (part.contentType.split(";")[0] ?? "").trim().toLowerCase()))
        .catch(() => undefined);
      if (url) urls.set(id, url);
    }),
  );
  return html.replace(CID, (whole, id: string) => urls.get(decoded(id).toLowerCase()) ?? whole);
}
