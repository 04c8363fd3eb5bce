import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** The focused element, named as a reader hears it, and whether its focus can be seen (an outline of 2px+). */
interface Focused {
  name: string;
  visible: boolean;
}

const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { name: "body", visible: false };
  const label = el.labels && el.labels[0] ? el.labels[0].textContent : "";
  const text = (el.getAttribute("aria-label") || label || el.textContent || el.value || "").trim();
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const outlined = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
  const onScreen = box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight;
  return { name: el.tagName.toLowerCase() + ":" + text.replace(/\\s+/g, " "), visible: outlined && onScreen };
})()`;

const focused = (page: Page) => page.evaluate(FOCUSED) as Promise<Focused>;

/** Presses Tab (or Shift+Tab) `count` times, noting where focus lands each time. */
async function tab(page: Page, count: number, shift = false): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let i = 0; i < count; i += 1) {
    await page.keyboard.press(shift ? "Shift+Tab" : "Tab");
    seen.push(await focused(page));
  }
  return seen;
}

/**
 * Issue 33 item 6: the console used from the keyboard, in Chromium. A skip link first, focus on the main
 * heading after each route change, a visible focus on every stop in the expected order, dialogs that keep
 * focus inside and give it back, and the `/` shortcut to the page's search box that leaves fields alone.
 */
describe.runIf(chromiumAvailable())("the console from the keyboard", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let endpointId: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["domains", "webhooks", "audit"], "keys");
    const endpoint = await stack.call(key, "POST", "/v1/webhooks", { url: "https://hooks.keys.test/in" });
    endpointId = String(endpoint.id);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("starts with a skip link, tabs through header then page with a visible focus, lands on each page's heading", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/webhooks");
    // A route change puts focus on the page's heading.
    await expect.poll(() => focused(page).then((f) => f.name)).toBe("h1:Webhooks");

    // Backwards from the heading: the header, then the skip link first in the document, then out of it.
    const back = await tab(page, 7, true);
    expect(back.map((f) => f.name)).toEqual([
      "button:Sign out",
      "a:Audit",
      "a:Webhooks",
      "a:Domains",
      "a:Mailroom",
      "a:Skip to content",
      "body",
    ]);
    // Forwards from the top of the document: the skip link, the header, then the page in reading order.
    const order = await tab(page, 13);
    expect(order.map((f) => f.name)).toEqual([
      ...back
        .slice(0, 6)
        .reverse()
        .map((f) => f.name),
      "a:https://hooks.keys.test/in",
      "input:URL",
      "input:email.scheduled",
      "input:email.queued",
      "input:email.delivered",
      "input:email.deferred",
      "input:email.bounced",
    ]);
    expect(order.filter((f) => !f.visible).map((f) => f.name)).toEqual([]);
    await tab(page, 12, true);

    // The skip link goes past the header to the main heading; the next Tab is the page's first control.
    expect((await focused(page)).name).toBe("a:Skip to content");
    await page.keyboard.press("Enter");
    expect((await focused(page)).name).toBe("h1:Webhooks");
    expect(await page.evaluate("location.hash")).toBe("#/webhooks");
    expect((await tab(page, 1))[0]?.name).toBe("a:https://hooks.keys.test/in");

    // Following a link by keyboard lands on the next page's heading.
    await page.keyboard.press("Enter");
    await expect.poll(() => focused(page).then((f) => f.name)).toBe("h1:https://hooks.keys.test/in");
    await page.keyboard.press("Shift+Tab");
    expect((await focused(page)).name).toBe("a:← Webhooks");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("keeps focus inside a dialog, closes it with Escape and gives focus back to its opener", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/webhooks/${endpointId}`);
    await expect.poll(() => focused(page).then((f) => f.name)).toBe("h1:https://hooks.keys.test/in");
    const stops = await tab(page, 3);
    expect(stops.map((f) => f.name)).toEqual([
      "button:Disable",
      "button:Rotate signing secret",
      "button:Delete endpoint",
    ]);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await dialog.waitFor();
    // Cancel first, so Enter alone never deletes; Tab and Shift+Tab go round the dialog's two buttons.
    expect((await focused(page)).name).toBe("button:Cancel");
    const round = await tab(page, 4);
    expect(round.map((f) => f.name)).toEqual([
      "button:Delete",
      "button:Cancel",
      "button:Delete",
      "button:Cancel",
    ]);
    expect(round.every((f) => f.visible)).toBe(true);
    expect((await tab(page, 1, true))[0]?.name).toBe("button:Delete");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect((await focused(page)).name).toBe("button:Delete endpoint");
    const { rows } = await stack.db.pool.query("select 1 from webhook_endpoints where id = $1", [endpointId]);
    expect(rows).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("makes a table that scrolls sideways a Tab stop the arrow keys scroll, and one that fits none", async () => {
    // At 1200 px and wider a record's name stays on one line, so a long domain's records overflow the page.
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.keys.test`;
    await stack.call(key, "POST", "/v1/domains", { name: long });
    const { context, page, errors } = await newPage(chromium.browser, { width: 1200, height: 900 });
    await signIn(page, stack.base, key, `#/domains/${long}`);
    await expect.poll(() => focused(page).then((f) => f.name)).toMatch(/^h1:a{60}\.b{60}\.keys\.test/);
    const wrap = page.locator(".table-wrap", { has: page.locator("table.records") });
    await expect.poll(() => wrap.getAttribute("tabindex")).toBe("0");
    expect(await wrap.getAttribute("aria-label")).toContain("scrolls sideways");
    // Reached with Tab after the page's button, before the copy buttons inside it.
    const stops = await tab(page, 2);
    expect(stops.map((f) => f.name.slice(0, 20))).toEqual(["button:Recheck DNS n", "div:Table of Purpose"]);
    const active = `document.activeElement === document.querySelector("table.records").closest(".table-wrap")`;
    expect(await page.evaluate(active)).toBe(true);
    expect(stops.every((f) => f.visible)).toBe(true);
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => wrap.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    // The endpoints' table fits: its wrapper is no Tab stop.
    await page.evaluate(`location.hash = "#/webhooks"`);
    await expect.poll(() => focused(page).then((f) => f.name)).toBe("h1:Webhooks");
    expect(await page.locator(".table-wrap").first().getAttribute("tabindex")).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("jumps to the page's search box with /, except while typing in a field or in a dialog", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/audit");
    await expect.poll(() => focused(page).then((f) => f.name)).toBe("h1:Audit trail");
    await page.keyboard.press("/");
    expect((await focused(page)).name).toBe("input:Actor (/)");
    // Inside the field, `/` is typed like any character.
    await page.keyboard.type("ApiKey/keys/ops");
    expect(await page.locator("#audit-actor").inputValue()).toBe("ApiKey/keys/ops");
    await page.keyboard.press("Tab");
    expect((await focused(page)).name).toBe("button:Filter");
    await page.keyboard.press("/");
    expect((await focused(page)).name).toBe("input:Actor (/)");
    expect(await page.locator("#audit-actor").inputValue()).toBe("ApiKey/keys/ops");

    // In a dialog (the console's own, opened as a view would), `/` does not reach for the page behind it.
    await page.evaluate(
      `import("./dialog.ts").then((m) => { void m.openDialog("Busy", [], [{ label: "Close", value: "" }]); })`,
    );
    await page.getByRole("dialog", { name: "Busy" }).waitFor();
    expect((await focused(page)).name).toBe("button:Close");
    await page.keyboard.press("/");
    expect((await focused(page)).name).toBe("button:Close");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.keyboard.press("Tab");
    await page.keyboard.press("/");
    expect((await focused(page)).name).toBe("input:Actor (/)");
    expect(errors).toEqual([]);
    await context.close();
  });
});
