import { readFile } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  screenshot,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** The dev inbox of `mailroom run`: mail the worker delivered to the capture server, browsed in the console. */
describe.runIf(chromiumAvailable())("dev inbox in the console", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send"]);
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows mail as it arrives, opens it as HTML, text and raw, downloads attachments, deletes all", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/inbox");
    await expect.poll(() => page.locator("#inbox-list").textContent()).toContain("No mail captured yet");

    // Sent after the page is open: the list updates by itself.
    await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "dev@example.test",
      subject: "Reset your password",
      html: "<p>Click <a href='https://acme.test/reset'>here</a> to reset.</p>",
      text: "Open https://acme.test/reset to reset.",
      attachments: [
        {
          filename: "notes.txt",
          contentType: "text/plain",
          content: Buffer.from("hello notes").toString("base64"),
        },
      ],
    });
    const row = page.locator("#inbox-list tbody tr");
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain("Reset your password");
    expect(await row.textContent()).toContain("dev@example.test");
    await screenshot(page, "dev-inbox");

    await row.getByRole("link").click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Reset your password");
    await expect.poll(() => page.frameLocator("iframe.email-frame").locator("a").textContent()).toBe("here");
    await screenshot(page, "dev-inbox-message");
    await page.getByRole("tab", { name: "Text" }).click();
    expect(await page.locator(".text-part").textContent()).toContain("Open https://acme.test/reset");
    await page.getByRole("tab", { name: "Raw" }).click();
    await expect
      .poll(() => page.locator("#raw-message").textContent())
      .toMatch(/^[\s\S]*Subject: Reset your password/);
    await page.getByRole("tab", { name: "Attachments (1)" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("notes.txt");
    expect(await readFile(await download.path(), "utf8")).toBe("hello notes");

    await page.getByRole("link", { name: "← Dev inbox" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete all" }).click();
    await expect.poll(() => page.locator("#inbox-list").textContent()).toContain("No mail captured yet");
    expect(await stack.call(key, "GET", "/v1/dev-inbox/messages")).toEqual({ data: [] });
    expect(errors).toEqual([]);
    await context.close();
  });
});
