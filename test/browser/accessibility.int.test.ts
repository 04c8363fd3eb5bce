import { createTlsRecorder } from "@mailroom/core/tls-reports";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./axe.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  keepPublishingShaping,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** Issue 33 item 6: axe-core on every console page in Chromium, no serious or critical violation. */
describe.runIf(chromiumAvailable())("console accessibility", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let stopPublishing: (() => Promise<void>) | undefined;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let webhookId: string;
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
    webhookId = String(webhook.id);
    await stack.call(key, "POST", "/v1/suppressions", { address: "gone@example.test" });
    // The transit page with a deferral, a TLS failure and a backed-off destination (badges, lists, replies).
    await createTlsRecorder(stack.db.pool)("axe", [
      {
        recipient: "eve@gmail.test",
        status: "temporary",
        code: 421,
        rateLimited: true,
        response: "421 4.7.28 unusual rate of mail",
        destination: "group:gmail",
        tls: {
          mechanism: "dane",
          policyDomain: "gmail.test",
          policyType: "tlsa",
          enforced: true,
          result: "tlsa-invalid",
          tls: true,
          verified: false,
        },
      },
    ]);
    stopPublishing = await keepPublishingShaping(stack.db.pool, "axe-worker", [
      {
        destination: "group:gmail",
        level: 0.5,
        concurrency: 2,
        ratePerMinute: 0,
        inFlight: 0,
        pausedUntil: new Date(Date.now() + 3_600_000),
        lastReply: "421 4.7.28 unusual rate of mail",
      },
    ]);
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
      ["transit", "#/transit", "Transit", "#transit-domains .badge-deferred"],
      ["email", `#/emails/${email}`, "Welcome", "#timeline li"],
      ["inbox", "#/inbox", "Dev inbox", "#inbox-list table"],
      ["inbox message", `#/inbox/${captured}`, "Welcome", "iframe.email-frame"],
      ["domains", "#/domains", "Domains", "table"],
      ["domain", "#/domains/mail.acme.test", "mail.acme.test", "table.records"],
      ["templates", "#/templates", "Templates", "table"],
      ["template", `#/templates/${template.id}`, "welcome", "#preview-subject"],
      ["template version", `#/templates/${template.id}/versions/1`, "welcome v1", "pre.text-part"],
      ["new template", "#/templates/new", "New template", "#template-name"],
      ["webhooks", "#/webhooks", "Webhooks", "table"],
      ["webhook", `#/webhooks/${webhook.id}`, "https://hooks.acme.test/mailroom", "main"],
      ["suppressions", "#/suppressions", "Suppressions", "table"],
      ["audit", "#/audit", "Audit trail", "#audit-table table, #audit-table"],
      ["keys", "#/keys", "API keys", "#keys-table"],
    );
  });
  afterAll(async () => {
    await stopPublishing?.();
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

  it("has none in the webhook dialogs, with a field's error shown, and on a page the key's scopes refuse", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/webhooks/${webhookId}`);
    const found: Record<string, string[]> = {};
    const check = async (name: string) => {
      const violations = await seriousViolations(page);
      if (violations.length > 0) found[name] = violations;
    };
    await page.getByLabel("URL").fill("http://169.254.169.254/");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.locator("#edit-endpoint-url-error").textContent()).toContain("Refused");
    await check("field error");
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page.getByRole("dialog").waitFor();
    await check("confirm dialog");
    await page.getByRole("button", { name: "Rotate", exact: true }).click();
    await page.getByRole("dialog", { name: "Signing secret" }).waitFor();
    await check("secret dialog");
    await page.getByRole("button", { name: "Done" }).click();
    const limited = await stack.keyWith(["send"], "axe");
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, stack.base, limited, "#/webhooks");
    await page.evaluate(`location.hash = "#/webhooks"`);
    await page.locator("#scope-refused").waitFor();
    await check("scope refused");
    expect(found).toEqual({});
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
