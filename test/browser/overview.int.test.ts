import { pauseAccount } from "@mailroom/core/accounts";
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
 * Issue 33 item 1 (and issue 31 item 5's console part): the console opens on an overview of the account's
 * mail, counted as the real worker delivers to a real SMTP server that accepts some recipients and refuses
 * others, with the split and the account's sending state.
 */
describe.runIf(chromiumAvailable())("the console's overview", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack({}, { production: true }), launchChromium()]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows the period's counts, rate, latency, charts and split, and the paused state", async () => {
    const sink = stack.sink;
    if (!sink) throw new Error("a production stack has a sink");
    sink.answer = (recipient) =>
      recipient.startsWith("gone") ? { code: 550, message: "5.1.1 no such user" } : { code: 250 };
    const key = await stack.keyWith(["send"], "ov");
    const pro = [{ name: "plan", value: "pro" }];
    for (const i of [1, 2, 3]) {
      await stack.send(key, {
        from: "App <app@one.test>",
        to: `user${i}@example.test`,
        subject: `hello ${i}`,
        text: "hi",
        category: "welcome",
        tags: pro,
      });
    }
    await stack.send(key, {
      from: "app@two.test",
      to: "gone@example.test",
      subject: "x",
      text: "x",
      category: "receipt",
    });
    await expect
      .poll(async () => ((await stack.call(key, "GET", "/v1/stats")).totals as { sent: number }).sent, {
        timeout: 60_000,
      })
      .toBe(4);

    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key);
    await expect.poll(() => page.url()).toContain("#/overview");
    const figure = (name: string) => page.locator(`[data-stat="${name}"] strong`).textContent();
    await expect.poll(() => figure("sent")).toBe("4");
    expect(await figure("delivered")).toBe("3");
    expect(await figure("bounced")).toBe("1");
    expect(await figure("failed")).toBe("0");
    expect(await figure("deliveryRate")).toBe("75.0 %");
    expect(await figure("p50")).toMatch(/^\d+(\.\d)? (ms|s)$/);
    expect(await figure("p99")).toMatch(/^\d+(\.\d)? (ms|s)$/);
    // The charts: one line per count, drawn through the period's points (24 hours).
    const delivered = page.locator('#chart-volume path[data-series="Delivered"]');
    expect((await delivered.getAttribute("d"))?.match(/[ML]/g)).toHaveLength(24);
    expect(await page.locator("#chart-volume").getByRole("img").getAttribute("aria-labelledby")).toBeTruthy();
    expect(await page.locator("#chart-volume .legend").textContent()).toContain("Delivered 3");
    expect(await page.locator("#overview-state").textContent()).toContain("Sending is active.");

    await page.getByLabel("Split by").selectOption("domain");
    await expect.poll(() => page.url()).toContain("#/overview/24h/domain");
    const rows = page.locator("#overview-split tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    expect((await rows.nth(0).locator("td").allTextContents()).slice(0, 4)).toEqual([
      "one.test",
      "3",
      "3",
      "0",
    ]);
    expect((await rows.nth(1).locator("td").allTextContents()).slice(0, 4)).toEqual([
      "two.test",
      "1",
      "0",
      "1",
    ]);
    await page.getByLabel("Split by").selectOption("tag");
    await expect.poll(() => rows.locator("td").first().textContent()).toBe("plan:pro");
    await page.getByLabel("Period").selectOption("30d");
    await expect.poll(() => page.url()).toContain("#/overview/30d/tag");
    await expect
      .poll(
        async () =>
          (await page.locator('#chart-volume path[data-series="Sent"]').getAttribute("d"))?.match(/[ML]/g)
            ?.length,
      )
      .toBeGreaterThanOrEqual(30);
    await page.getByLabel("Split by").selectOption("");
    await screenshot(page, "console-overview", true);

    await pauseAccount(stack.db.pool, "ov", {
      reason: "reputation: bounce rate 25.00 % over 24 h",
      by: "reputation-guard",
      now: new Date(),
    });
    await page.reload();
    await expect
      .poll(() => page.locator("#overview-state").textContent())
      .toContain("Sending is paused since");
    expect(await page.locator("#overview-state").textContent()).toContain(
      "(reputation: bounce rate 25.00 % over 24 h)",
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});
