import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** Issue 33 item 3: the log's search box, reached with `/`, finds emails by subject word and address. */
describe.runIf(chromiumAvailable())("searching the email log in the console", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("focuses the search with / and shows only the matching emails", async () => {
    const key = await stack.keyWith(["send"], "finder");
    const mail = (subject: string, to: string) => ({ from: "app@find.test", to, subject, text: "t" });
    await stack.send(key, mail("Your invoice is ready", "ann@example.test"));
    await stack.send(key, mail("Password reset", "bob@example.test"));
    await stack.send(key, mail("Welcome", "carol@example.test"));

    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/emails");
    const rows = page.locator("#email-results tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    await page.locator("body").press("/");
    await expect
      .poll(() => page.evaluate("document.activeElement && document.activeElement.id"))
      .toBe("filter-q");
    await page.keyboard.type("invoice");
    await page.keyboard.press("Enter");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator("a.subject").textContent()).toBe("Your invoice is ready");

    await page.getByLabel("Search (/)").fill("bob@");
    await page.getByLabel("Search (/)").press("Enter");
    await expect.poll(() => rows.first().locator("a.subject").textContent()).toBe("Password reset");
    expect(await rows.count()).toBe(1);
    // Typing `/` into a field types it.
    await page.getByLabel("Tag").fill("");
    await page.getByLabel("Tag").press("/");
    expect(await page.getByLabel("Tag").inputValue()).toBe("/");
    expect(errors).toEqual([]);
    await context.close();
  });
});
