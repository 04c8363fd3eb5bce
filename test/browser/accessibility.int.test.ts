import axe from "axe-core";
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

// axe-core's browser build, run through the DevTools protocol (the console's CSP allows no injected script tag).
const AXE = axe.source;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** The serious and critical axe violations on the page as it is now, one line each (empty when none). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Issue 33 item 6: axe-core on every console page in Chromium, no serious or critical violation. */
describe.runIf(chromiumAvailable())("console accessibility", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  const pages: Array<[string, string, string, string]> = [];

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send", "domains", "templates", "webhooks", "audit", "keys"], "axe");
    const email = await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "ann@example.test",
      subject: "Welcome",
      html: "<p>Hello</p>",
      text: "Hello",
      attachments: [{ filename: "a.txt", contentType: "text/plain", content: "aGk=" }],
    });
    await stack.call(key, "POST", "/v1/domains", { name: "mail.acme.test" });
    const template = await stack.call(key, "POST", "/v1/templates", {
      name: "welcome",
      subject: "Hi",
      text: "Hi",
    });
    const webhook = await stack.call(key, "POST", "/v1/webhooks", {
      url: "https://hooks.acme.test/mailroom",
    });
    await stack.call(key, "POST", "/v1/suppressions", { address: "gone@example.test" });
    // The captured copy of the email, once the worker has delivered it to the dev inbox.
    let captured: string | undefined;
    while (!captured) {
      const { data } = (await stack.call(key, "GET", "/v1/dev-inbox/messages")) as {
        data: Array<{ id: string }>;
      };
      captured = data[0]?.id;
      if (!captured) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // [name, hash, what its h1 says, a selector that is there once its data has loaded]
    pages.push(
      ["overview", "#/overview", "Overview", "#overview-state"],
      ["emails", "#/emails", "Emails", "table.emails"],
      ["email", `#/emails/${email}`, "Welcome", "#timeline li"],
      ["inbox", "#/inbox", "Dev inbox", "#inbox-list table"],
      ["inbox message", `#/inbox/${captured}`, "Welcome", "iframe.email-frame"],
      ["domains", "#/domains", "Domains", "table"],
      ["domain", "#/domains/mail.acme.test", "mail.acme.test", "table.records"],
      ["templates", "#/templates", "Templates", "table"],
      ["template", `#/templates/${template.id}`, "welcome", "main"],
      ["webhooks", "#/webhooks", "Webhooks", "table"],
      ["webhook", `#/webhooks/${webhook.id}`, "https://hooks.acme.test/mailroom", "main"],
      ["suppressions", "#/suppressions", "Suppressions", "table"],
      ["audit", "#/audit", "Audit trail", "#audit-table table, #audit-table"],
      ["keys", "#/keys", "API keys", "#keys-table"],
    );
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("has none on the sign-in page", async () => {
    const { context, page } = await newPage(chromium.browser);
    await page.goto(`${stack.base}/console/`);
    await page.getByLabel("API key").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it("finds a violation planted on a page (the check can fail)", async () => {
    const { context, page } = await newPage(chromium.browser);
    await page.goto(`${stack.base}/console/`);
    await page.getByLabel("API key").waitFor();
    await page.evaluate(
      `document.body.append(Object.assign(document.createElement("img"), { src: "data:," }))`,
    );
    expect((await seriousViolations(page)).join()).toContain("image-alt");
    await context.close();
  });

  it.each(["light", "dark"] as const)(
    "has none on any page a signed-in key with every scope sees (%s)",
    async (scheme) => {
      const { context, page } = await newPage(chromium.browser);
      await page.emulateMedia({ colorScheme: scheme });
      await signIn(page, stack.base, key);
      const found: Record<string, string[]> = {};
      for (const [name, hash, title, ready] of pages) {
        await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
        // A view draws its outlet at once: its h1 and its data come together.
        await expect
          .poll(() => page.locator("h1").first().textContent(), { timeout: 30_000 })
          .toContain(title);
        await page.locator(ready).first().waitFor({ timeout: 30_000 });
        const violations = await seriousViolations(page);
        if (violations.length > 0) found[name] = violations;
      }
      expect(found).toEqual({});
      // The system's scheme is followed: the page's background is dark in dark mode only.
      const background = await page.evaluate("getComputedStyle(document.documentElement).backgroundColor");
      expect(background).toBe(scheme === "dark" ? "rgb(18, 21, 28)" : "rgb(246, 247, 249)");
      await context.close();
    },
  );
});
