import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/**
 * Issue 26, item 6: with remote content off, an email's HTML preview makes the browser resolve no name the
 * sender chose (a DNS lookup is a read receipt). Chromium's own net log is the witness: every host it
 * resolves, prefetches or preconnects to is recorded there, whatever the page's CSP then does.
 */
const NAMES = ["iframe", "prefetch", "preconnect", "anchor", "css", "video", "svg", "srcset", "object"].map(
  (what) => `${what}-dns.evil.test`,
);

function trackingHtml(): string {
  const [iframe, prefetch, preconnect, anchor, css, video, svg, srcset, object] = NAMES;
  return `<html><head>
<link rel="dns-prefetch" href="//${prefetch}"><link rel="preconnect" href="https://${preconnect}">
<style>body { background: url(https://${css}/bg.png) }</style></head><body>
<iframe src="https://${iframe}/read-receipt"></iframe>
<a href="https://${anchor}/offer">An offer</a>
<video poster="https://${video}/poster.png"></video>
<svg><image href="https://${svg}/i.png"/></svg>
<img srcset="https://${srcset}/a.png 1x" alt="x">
<object data="https://${object}/o"></object>
<p id="body-text">Hello</p></body></html>`;
}

describe.runIf(chromiumAvailable())(
  "the HTML preview resolves no sender-chosen name",
  { timeout: 120_000 },
  () => {
    let stack: ConsoleStack;
    let dir: string;
    let key: string;
    let id: string;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-netlog-"));
      stack = await startConsoleStack();
      key = await stack.keyWith(["send"]);
      id = await stack.send(key, {
        from: "Tracker <news@evil.test>",
        to: "reader@example.test",
        subject: "Tracked",
        html: trackingHtml(),
      });
    });
    afterAll(async () => {
      await stack?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("with remote content off, Chromium's net log shows no lookup of any name in the email", async () => {
      const netLog = path.join(dir, "netlog.json");
      const chromium = await launchChromium([`--log-net-log=${netLog}`, "--net-log-capture-mode=Everything"]);
      try {
        const { context, page } = await newPage(chromium.browser);
        await signIn(page, stack.base, key, `#/emails/${id}`);
        await page.frameLocator("iframe.email-frame").locator("#body-text").waitFor();
        await page.frameLocator("iframe.email-frame").getByText("An offer").hover();
        await page.waitForTimeout(1_000);
        await context.close();
      } finally {
        await chromium.close();
      }
      const log = await readFile(netLog, "utf8");
      // The log does record names: the console's own host is in it.
      expect(log).toContain("localhost");
      for (const name of NAMES) expect(log, name).not.toContain(name);
    });
  },
);
