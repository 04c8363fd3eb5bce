import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { addSuppressions } from "@mailroom/core/suppressions";
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

/** Templates, webhooks, suppressions and the log's live refresh, in Chromium against the real API and worker. */
describe.runIf(chromiumAvailable())("console resources", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let receiver: Server;
  const received: string[] = [];
  let key: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        received.push(String(request.headers["webhook-id"]));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const env = { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" };
    [stack, chromium] = await Promise.all([startConsoleStack(env), launchChromium()]);
    key = await stack.keyWith(["send", "templates", "webhooks"]);
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("previews a template live as the variables change", async () => {
    const template = await stack.call(key, "POST", "/v1/templates", {
      name: "welcome",
      subject: "Welcome, {{name}}",
      html: "<p>Hello <b id='who'>{{name}}</b></p>",
      text: "Hello {{name}}",
    });
    await stack.call(key, "PATCH", `/v1/templates/${template.id}`, { subject: "Hi {{name}}!" });
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/templates/${template.id}`);
    await expect.poll(() => page.locator("#preview-version option").allTextContents()).toEqual(["v1", "v2"]);
    await page.locator("#preview-variables").fill('{"name": "<Ann>"}');
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Hi <Ann>!");
    // Variables are HTML-escaped in the html part: the name shows as text inside the sandboxed frame.
    await expect.poll(() => page.frameLocator("#preview iframe").locator("#who").textContent()).toBe("<Ann>");
    await page.locator("#preview-version").selectOption("1");
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Welcome, <Ann>");
    await page.locator("#preview-variables").fill("{not json");
    await expect.poll(() => page.locator("#preview").textContent()).toContain("Variables are not JSON");
    await context.close();
  });

  it("refreshes the log by itself, lists webhook deliveries and replays one", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const endpoint = await stack.call(key, "POST", "/v1/webhooks", { url, events: ["email.delivered"] });
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/emails");
    await expect.poll(() => page.locator("#email-results").textContent()).toContain("No emails match");
    await stack.send(key, {
      from: "Acme <hi@acme.test>",
      to: "live@example.test",
      subject: "Live one",
      text: "x",
    });
    // No reload: the page's live refresh picks the new email up.
    await expect
      .poll(() => page.locator("#email-results").textContent(), { timeout: 30_000 })
      .toContain("Live one");

    await until(
      async () => received.length,
      (n) => n >= 1,
      30_000,
    );
    await page.goto(`${stack.base}/console/#/webhooks/${endpoint.id}`);
    const rows = page.locator("#deliveries tbody tr");
    await expect.poll(() => rows.textContent(), { timeout: 30_000 }).toMatch(/email\.delivered.*succeeded/);
    await rows.getByRole("button", { name: "Replay" }).first().click();
    const after = await until(
      async () => received.length,
      (n) => n >= 2,
      30_000,
    );
    expect(after).toBeGreaterThanOrEqual(2);
    await context.close();
  });

  it("finds a suppressed address and lifts it", async () => {
    await addSuppressions(stack.db.pool, "default", [
      { address: "gone@example.test", reason: "hard_bounce", detail: "550 5.1.1 no such user" },
      { address: "kept@example.test", reason: "hard_bounce", detail: "550 5.1.1 no such user" },
    ]);
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/suppressions");
    const results = page.locator("#suppression-results");
    await expect.poll(() => results.locator("tbody tr").count()).toBe(2);
    await page.getByLabel("Address").fill("gone@example.test");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => results.locator("tbody tr").count()).toBe(1);
    await results.getByRole("button", { name: "Lift" }).click();
    await expect.poll(() => results.textContent()).toContain("gone@example.test is not suppressed");
    const { rows } = await stack.db.pool.query("select address from suppressions order by address");
    expect(rows.map((r) => r.address)).toEqual(["kept@example.test"]);
    await context.close();
  });

  it("pages through the log with its cursor", async () => {
    // 25 a page: with the one email of the live test, 26 makes a second page of one.
    for (let i = 0; i < 25; i += 1) {
      await stack.send(key, {
        from: "Acme <hi@acme.test>",
        to: `p${i}@example.test`,
        subject: `Bulk ${i}`,
        text: "x",
      });
    }
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/emails");
    const rows = page.locator("#email-results tbody tr");
    await expect.poll(() => rows.count()).toBe(25);
    expect(await rows.first().textContent()).toContain("Bulk 24");
    await page.locator("#live").uncheck();
    await page.getByRole("button", { name: "Older →" }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Live one")]);
    expect(await page.getByRole("button", { name: "Older →" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "← Newer" }).click();
    await expect.poll(() => rows.count()).toBe(25);
    await context.close();
  });
});
