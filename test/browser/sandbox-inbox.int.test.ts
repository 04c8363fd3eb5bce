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

/**
 * Issue 30: the dev inbox in a production-shaped install (the worker relays to a real SMTP server, no local
 * capture): a sandbox key's mail shows in its account's inbox in the console, another account's console
 * shows none of it, and the SMTP server receives nothing.
 */
describe.runIf(chromiumAvailable())("sandbox inbox in a production install", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack({}, { production: true }), launchChromium()]);
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows a sandbox key's mail to its own account only, and nothing leaves", async () => {
    const key = await stack.keyWith(["send"], "staging", "sandbox");
    const other = await stack.keyWith(["send"], "shop", "sandbox");
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/inbox");
    await expect.poll(() => page.locator("#inbox-list").textContent()).toContain("No mail captured yet");
    await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "customer@example.test",
      subject: "Your staging order",
      html: "<p>Order <b>#7</b> confirmed.</p>",
    });
    const row = page.locator("#inbox-list tbody tr");
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain("Your staging order");
    await screenshot(page, "sandbox-inbox");
    await row.getByRole("link").click();
    await expect.poll(() => page.frameLocator("iframe.email-frame").locator("b").textContent()).toBe("#7");
    expect(errors).toEqual([]);
    await context.close();

    const second = await newPage(chromium.browser);
    await signIn(second.page, stack.base, other, "#/inbox");
    await expect
      .poll(() => second.page.locator("#inbox-list").textContent())
      .toContain("No mail captured yet");
    expect(second.errors).toEqual([]);
    await second.context.close();
    expect(stack.sink?.messages).toEqual([]);
  });
});
