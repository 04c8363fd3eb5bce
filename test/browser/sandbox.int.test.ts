import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/wait.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

const HOSTILE_SUBJECT = `<img src=x onerror="window.pwned='subject'"><b>Bold</b> & "quotes"`;

/** An email written to attack whoever views it: every trick here must stay inert in the console. */
function hostileHtml(origin: string): string {
  return `<!doctype html><html><head>
<meta http-equiv="refresh" content="0;url=${origin}/refresh">
<link rel="stylesheet" href="${origin}/style.css">
<style>@import url("${origin}/import.css"); body { background: url("${origin}/background.png"); }</style>
<script>window.top.pwned = "script"; top.document.title = "pwned"; fetch("${origin}/script");</script>
</head><body>
<div id="overlay" style="position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:2147483647;background:red">
  Fake sign-in: <a id="js-link" href="javascript:top.pwned='link'">Click to continue</a>
</div>
<img id="tracker" src="${origin}/pixel.png" alt="">
<img src="x" onerror="top.pwned='onerror'">
<svg><script>top.pwned = "svg"</script></svg>
<form action="${origin}/form" method="post"><input name="password"><button id="submit">Log in</button></form>
<iframe src="${origin}/nested"></iframe>
<a id="popup" href="${origin}/popup" target="_blank">Open</a>
</body></html>`;
}

describe.runIf(chromiumAvailable())("email HTML in the console sandbox", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let receiver: Server;
  const hits: string[] = [];
  let key: string;
  let id: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      hits.push(request.url ?? "");
      response.writeHead(200, { "content-type": "image/png" }).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send"]);
    id = await stack.send(key, {
      from: "Mallory <mallory@evil.test>",
      to: "victim@example.test",
      subject: HOSTILE_SUBJECT,
      html: hostileHtml(origin),
      text: `<script>top.pwned='text'</script>`,
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("shows the subject as text and runs nothing from the email in the console's origin", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, stack.base, key, `#/emails/${id}`);
    await expect.poll(() => page.locator("h1.email-subject").textContent()).toBe(HOSTILE_SUBJECT);
    expect(await page.locator("h1.email-subject b, h1.email-subject img").count()).toBe(0);

    const frame = page.locator("iframe.email-frame");
    expect(await frame.getAttribute("sandbox")).toBe("");
    const inner = page.frameLocator("iframe.email-frame");
    await inner.locator("#js-link").waitFor();
    // The email's own overlay stays inside the frame's box: the console's navigation is still on top.
    const box = await frame.boundingBox();
    const overlay = await inner.locator("#overlay").boundingBox();
    expect(box && overlay).toBeTruthy();
    if (box && overlay) expect(overlay.height).toBeLessThanOrEqual(box.height + 1);
    expect(await page.evaluate("document.elementFromPoint(40, 20)?.closest('header')?.className")).toBe(
      "top",
    );

    await inner.locator("#js-link").click({ force: true });
    await inner.locator("#submit").click({ force: true });
    await inner.locator("#popup").click({ force: true });
    await page.waitForTimeout(500);

    expect(await page.evaluate("window.pwned")).toBeUndefined();
    expect(await page.title()).toBe("Mailroom console");
    expect(dialogs).toEqual([]);
    expect(context.pages()).toHaveLength(1);
    expect(page.url()).toContain(`#/emails/${id}`);
    // Remote content is off by default: not one request reached the sender's server.
    expect(hits).toEqual([]);
    await page.getByRole("tab", { name: "Text" }).click();
    expect(await page.locator(".text-part").textContent()).toBe("<script>top.pwned='text'</script>");
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    expect(errors.filter((e) => !e.includes("Content Security Policy") && !e.includes("sandbox"))).toEqual(
      [],
    );
    await context.close();
  });

  it("loads remote images only when asked, and still nothing else", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${id}`);
    await page.frameLocator("iframe.email-frame").locator("#js-link").waitFor();
    await page.waitForTimeout(300);
    expect(hits).toEqual([]);
    await page.getByLabel(/Load remote images/).check();
    const seen = await until(
      async () => [...hits],
      (h) => h.includes("/pixel.png"),
      15_000,
    );
    expect(seen).toContain("/pixel.png");
    // Images only: no script, stylesheet, form, refresh, nested frame or popup ever reached the server.
    expect(seen.filter((url) => !url.endsWith(".png"))).toEqual([]);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    await context.close();
  });
});
