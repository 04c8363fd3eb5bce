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

/**
 * Issue 33 item 5, the small viewer items: times with their zone, the door (`source`) in the email list,
 * timeline details as text rather than JSON, and DNS record names that stay on one line at 1440 px.
 */
describe.runIf(chromiumAvailable())("what the viewer shows", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let emailId: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send", "domains"], "viewer");
    emailId = await stack.send(key, {
      from: "Shop <hello@shop.test>",
      to: "ann@example.test",
      subject: "Your order",
      text: "Thanks",
    });
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("lists the door each email came through and shows times with their zone", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/emails");
    const table = page.locator("table.emails");
    await table.waitFor();
    expect(await table.locator("thead").textContent()).toContain("Source");
    const row = table.locator("tbody tr").first();
    expect(await row.locator("td").nth(4).textContent()).toBe("API");
    // A zone name (UTC, GMT+1, CET, …) ends the time.
    expect(await row.locator("time").textContent()).toMatch(
      /\d{2}(\s?[AaPp]\.?[Mm]\.?)?\s(UTC|GMT[+-]?[\d:]*|[A-Z]{3,5}[+-]?\d*)$/,
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("writes timeline details as `Key: value` text, not JSON", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${emailId}`);
    const details = page.locator("#timeline li pre");
    await expect.poll(() => details.count()).toBeGreaterThan(0);
    const text = (await details.allTextContents()).join("\n");
    expect(text).not.toMatch(/[{}"]/);
    expect(text).toMatch(/^[A-Z][a-z0-9 ]*: \S/m);
    await context.close();
  });

  it("keeps each DNS record name on one line at 1440 px beside the long DKIM value", async () => {
    await stack.call(key, "POST", "/v1/domains", { name: "mail.shop.test" });
    const { context, page } = await newPage(chromium.browser, { width: 1440, height: 900 });
    await signIn(page, stack.base, key, "#/domains/mail.shop.test");
    const names = page.locator("table.records tbody tr td:nth-child(3) code");
    await expect.poll(() => names.count()).toBeGreaterThan(2);
    // Each name's rendered height in lines of its own line height (a string: the page's code, not Node's).
    const lines = (await page.evaluate(
      `[...document.querySelectorAll("table.records tbody tr td:nth-child(3) code")].map((code) => ({
        name: code.textContent,
        lines: Math.round(code.getBoundingClientRect().height / (parseFloat(getComputedStyle(code).lineHeight) || 16)),
      }))`,
    )) as { name: string; lines: number }[];
    expect(lines.filter((l) => l.lines > 1)).toEqual([]);
    await context.close();
  });
});
