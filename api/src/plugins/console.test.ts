import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAssets } from "./console.ts";

describe("console assets", () => {
  let assets: Map<string, { body: Buffer; type: string }>;
  beforeAll(async () => {
    assets = await consoleAssets();
  });

  it("serves every module as JavaScript with the types stripped", () => {
    const main = assets.get("main.ts");
    expect(main?.type).toBe("text/javascript; charset=utf-8");
    expect(main?.body.toString()).not.toMatch(/: (KeyInfo|View|ViewContext)\b/);
    expect(assets.get("index.html")?.type).toBe("text/html; charset=utf-8");
  });

  it("ships no inline script and no innerHTML", () => {
    const html = assets.get("index.html")?.body.toString() ?? "";
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const [name, asset] of assets) {
      const text = asset.body.toString();
      expect(text, name).not.toMatch(/(innerHTML|outerHTML)\s*=[^=]|insertAdjacentHTML|document\.write/);
      // Only the email sanitiser parses and serialises markup: DOMParser's inert document, whose output goes
      // nowhere but the sandboxed frame's srcdoc (issue 26).
      if (name !== "inert-html.ts") expect(text, name).not.toMatch(/innerHTML|outerHTML|DOMParser/);
    }
  });

  it("stays within the 150 KB gzipped budget", () => {
    const gzipped = [...assets.values()].reduce((sum, a) => sum + gzipSync(a.body, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThan(150 * 1024);
  });
});
