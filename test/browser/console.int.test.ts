import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/wait.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  screenshot,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** The console in Debian's Chromium against the real API and worker: sign-in, navigation, log, detail, domains. */
describe.runIf(chromiumAvailable())("web console", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let receiptId: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send", "domains", "templates", "webhooks"]);
    receiptId = await stack.send(key, {
      from: "Acme <billing@acme.test>",
      to: "ann@example.test",
      subject: "Your receipt #1042",
      html: "<h1>Thanks, Ann</h1><p>Total: 42 EUR</p>",
      text: "Thanks, Ann. Total: 42 EUR",
      category: "receipts",
      tags: [{ name: "plan", value: "pro" }],
      attachments: [{ filename: "receipt.pdf", content: Buffer.from("%PDF-1.4 fake").toString("base64") }],
    });
    await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "bob@example.test",
      subject: "Welcome aboard",
      text: "Hello Bob",
      category: "onboarding",
    });
    // Both delivered to the capture server: the timeline then has the attempt and its SMTP reply.
    await until(
      () => stack.db.pool.query("select count(*)::int as n from emails where status = 'delivered'"),
      (r) => r.rows[0].n === 2,
      30_000,
    );
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("serves the console with a strict CSP and clickjacking protection", async () => {
    const { context, page } = await newPage(chromium.browser);
    const response = await page.goto(`${stack.base}/console/`);
    const headers = response?.headers() ?? {};
    expect(headers["content-security-policy"]).toContain("script-src 'self';");
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"]).not.toMatch(/script-src[^;]*unsafe/);
    expect(headers["x-frame-options"]).toBe("DENY");
    // Modules are served as JavaScript (types stripped), not as .ts downloads.
    const module = await context.request.get(`${stack.base}/console/main.ts`);
    expect(module.headers()["content-type"]).toContain("text/javascript");
    expect(await module.text()).not.toContain(": KeyInfo");
    await context.close();
  });

  it("refuses a wrong key and keeps the key out of cookies and URLs", async () => {
    const { context, page } = await newPage(chromium.browser);
    await page.goto(`${stack.base}/console/`);
    await screenshot(page, "sign-in");
    await page.getByLabel("API key").fill("mrk_AAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Sign-in failed");
    await signIn(page, stack.base, key);
    expect(await context.cookies()).toEqual([]);
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate("sessionStorage.getItem('mailroom.apiKey')")).toBe(key);
    await context.close();
  });

  it("shows only the sections the key's scopes allow", async () => {
    const sendOnly = await stack.keyWith(["send"]);
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, sendOnly);
    const nav = page.getByRole("navigation", { name: "Sections" });
    await expect
      .poll(() => nav.getByRole("link").allTextContents())
      .toEqual(["Overview", "Emails", "Transit", "Dev inbox", "Suppressions"]);
    // A hand-typed address of a hidden section lands on an allowed one, the first: the overview.
    await page.goto(`${stack.base}/console/#/domains`);
    await expect.poll(() => page.url()).toContain("#/overview");
    await page.goto(`${stack.base}/console/#/emails`);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.locator("#email-results tbody tr").count()).toBeGreaterThan(0);
    await screenshot(page, "email-log-phone");
    await context.close();
  });

  it("filters the email log and pages through it", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/emails");
    const rows = page.locator("#email-results tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await screenshot(page, "email-log");
    await page.locator("#filter-category").fill("onboarding");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Welcome aboard")]);
    await page.getByRole("button", { name: "Clear" }).click();
    await page.locator("#filter-tag").fill("plan:pro");
    await page.locator("#filter-to").fill("ann@example.test");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Your receipt #1042")]);
    await page.locator("#filter-status").selectOption("bounced");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.locator("#email-results").textContent()).toContain("No emails match");
    await context.close();
  });

  it("opens an email with its recipients' SMTP replies, timeline, text, headers and attachments", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${receiptId}`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("Your receipt #1042");
    const recipients = page.locator("table.recipients tbody tr");
    await expect.poll(() => recipients.textContent()).toMatch(/ann@example\.test.*accepted.*250/);
    const timeline = await page.locator("#timeline li").allTextContents();
    expect(timeline.join("\n")).toMatch(/queued[\s\S]*delivered/);
    await page.frameLocator("iframe.email-frame").locator("h1").waitFor();
    await screenshot(page, "email-detail", true);
    await page.getByRole("tab", { name: "Text" }).click();
    await expect.poll(() => page.locator(".text-part").textContent()).toBe("Thanks, Ann. Total: 42 EUR");
    await page.getByRole("tab", { name: "Attachments (1)" }).click();
    await expect.poll(() => page.locator(".tab-panel").textContent()).toContain("receipt.pdf");
    await context.close();
  });

  it("cancels a scheduled email from its page", async () => {
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const id = await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "cat@example.test",
      subject: "See you tomorrow",
      text: "Later",
      scheduledAt: later,
    });
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${id}`);
    await page.getByRole("button", { name: "Cancel email" }).click();
    await expect.poll(() => page.locator(".badge").first().textContent()).toBe("canceled");
    const { rows } = await stack.db.pool.query("select status from emails where id = $1", [id]);
    expect(rows[0].status).toBe("canceled");
    await context.close();
  });

  it("adds a domain, shows the records to publish with their status, and rechecks", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/domains");
    await page.getByLabel("Domain name").fill("mail.acme.test");
    await page.getByRole("button", { name: "Add domain" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toContain("mail.acme.test");
    const records = page.locator("table.records tbody tr");
    await expect.poll(() => records.count()).toBeGreaterThanOrEqual(3);
    expect(await records.first().textContent()).toContain("._domainkey.mail.acme.test");
    await page.getByRole("button", { name: "Recheck DNS now" }).click();
    // Nothing is published for a .test name: the recheck reports each record as not verified.
    await expect.poll(() => page.locator("table.records").textContent()).toMatch(/failed|temporary_failure/);
    await screenshot(page, "domain");
    await context.close();
  });
});
