import { pauseAccount, resumeAccount } from "@mailroom/core/accounts";
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

/** Issue 31: a paused account's console says so on every page; an active one shows no banner. */
describe.runIf(chromiumAvailable())("the console's paused-account banner", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows why and since when sending is paused, and nothing once resumed", async () => {
    const key = await stack.keyWith(["send"], "storm");
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key);
    expect(await page.locator("#banner").isHidden()).toBe(true);

    await pauseAccount(stack.db.pool, "storm", {
      reason: "reputation: complaint rate 1.00 % over 24 h for the account (600 sent)",
      by: "reputation-guard",
      now: new Date(),
    });
    await page.reload();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const banner = page.getByRole("alert");
    await banner.waitFor();
    const text = await banner.textContent();
    expect(text).toContain("Sending is paused for storm since");
    expect(text).toContain("(reputation: complaint rate 1.00 % over 24 h for the account (600 sent))");
    expect(text).toContain("mail already accepted is held until the account is resumed");
    await screenshot(page, "console-paused-banner");

    await resumeAccount(stack.db.pool, "storm", { by: "test", now: new Date() });
    await page.reload();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.locator("#banner").isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
