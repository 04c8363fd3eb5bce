import { AUDIT_ACTIONS } from "@mailroom/core/audit";
import { createKey } from "@mailroom/core/keys";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
 * Issue 33 item 4: the console's Audit page lists the account's changes with who made them (the key's name
 * and id), the action, the target and where the request came from; filtering by action narrows the list.
 * Only a key with the `audit` scope sees the page.
 */
describe.runIf(chromiumAvailable())("the console's audit trail", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows each change with its actor and origin, filters by action, and is offered only to `audit` keys", async () => {
    const maker = await createKey(stack.db.pool, {
      account: "acme",
      name: "deploy bot",
      scopes: ["send", "templates"],
      expires: "never",
    });
    const template = await stack.call(maker.fullKey, "POST", "/v1/templates", {
      name: "welcome",
      subject: "Hi",
      text: "t",
    });
    await stack.call(maker.fullKey, "POST", "/v1/suppressions", { address: "gone@example.test" });
    await stack.call(maker.fullKey, "DELETE", "/v1/suppressions/gone%40example.test");
    const auditor = await stack.keyWith(["audit"], "acme");

    const { context, page, errors } = await newPage(chromium.browser);
    const asked: string[] = [];
    page.on("request", (request) => asked.push(request.url()));
    await signIn(page, stack.base, auditor);
    await page.getByRole("link", { name: "Audit" }).click();
    const table = page.locator("#audit-table");
    await table.waitFor();
    const rows = table.locator("tbody tr");
    expect(await rows.count()).toBe(3);
    const text = (await table.textContent()) ?? "";
    expect(text).toContain("suppression.lifted");
    expect(text).toContain("suppression.added");
    expect(text).toContain("template.created");
    expect(text).toContain(String(template.id));
    expect(text).toContain(`deploy bot (${maker.key.keyId})`);
    expect(text).toContain("127.0.0.1");
    await screenshot(page, "console-audit");

    // The filter offers exactly the API's actions, read from GET /v1/audit/actions (no copy in the console).
    expect(asked.some((url) => new URL(url).pathname === "/v1/audit/actions")).toBe(true);
    const offered = (await page.evaluate(
      `[...document.querySelectorAll("#audit-action option")].map((o) => o.value)`,
    )) as string[];
    expect(offered).toEqual(["", ...AUDIT_ACTIONS]);
    await page.locator("#audit-action").selectOption("template.created");
    await page.getByRole("button", { name: "Filter" }).click();
    await vi.waitFor(async () => expect(await rows.count()).toBe(1), { timeout: 10_000 });
    expect(await rows.first().textContent()).toContain("template.created");
    expect(errors).toEqual([]);
    await context.close();

    // A key without the scope is not offered the page.
    const other = await newPage(chromium.browser);
    await signIn(other.page, stack.base, maker.fullKey);
    expect(await other.page.getByRole("link", { name: "Audit" }).count()).toBe(0);
    await other.context.close();
  });
});
