import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { activeSecrets, createEndpoint } from "@mailroom/core/webhooks";
import type { Browser, Page } from "playwright-core";
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

interface EndpointRow {
  id: string;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
}

/**
 * Issue 33 item 5: webhook endpoints made, changed, disabled, re-keyed and deleted in the console, in Chromium
 * against the real API (each change read back from Postgres); the API's refusals shown beside their field;
 * endpoints the operator declared shown read-only with their resource's name; a key without the scope told why.
 */
describe.runIf(chromiumAvailable())("editing webhook endpoints in the console", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let receiver: Server;
  let hookUrl: string;
  let key: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const env = { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" };
    [stack, chromium] = await Promise.all([startConsoleStack(env), launchChromium()]);
    key = await stack.keyWith(["send", "webhooks"], "hooks");
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const rows = async () =>
    (
      await stack.db.pool.query<EndpointRow>(
        "select id, url, event_types, description, enabled from webhook_endpoints where account = 'hooks' order by created_at",
      )
    ).rows;

  /** The secret the dialog shows, once; the dialog is closed with Done. */
  async function secretShown(page: Page): Promise<string> {
    const dialog = page.getByRole("dialog", { name: "Signing secret" });
    await dialog.waitFor();
    const secret = (await dialog.locator("#new-secret code").textContent()) ?? "";
    // Its Copy button puts exactly that on the clipboard.
    await dialog.getByRole("button", { name: "Copy signing secret" }).click();
    await expect
      .poll(() => dialog.getByRole("button", { name: "Copy signing secret" }).textContent())
      .toBe("Copied");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    return secret;
  }

  it("adds an endpoint, shows its secret once, edits, disables, rotates and deletes it", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.base });
    await signIn(page, stack.base, key, "#/webhooks");
    await page.getByRole("heading", { name: "Add an endpoint" }).waitFor();

    // The SSRF guard's refusal, beside the URL field, and nothing stored.
    await page.getByLabel("URL").fill("http://169.254.169.254/latest/meta-data");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const urlError = page.locator("#new-endpoint-url-error");
    await expect.poll(() => urlError.textContent()).toContain("169.254.169.254");
    expect(await urlError.textContent()).toMatch(/^Refused: .*never sends webhooks to cloud metadata/);
    expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("URL").fill("http://10.0.0.7/hooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await expect.poll(() => urlError.textContent()).toContain("10.0.0.7");
    expect(await urlError.textContent()).toContain("unless the installation allows this range");
    await page.getByLabel("URL").fill("ftp://hooks.example.test/x");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await expect.poll(() => urlError.textContent()).toContain("http");
    expect(await rows()).toEqual([]);

    await page.getByLabel("URL").fill(hookUrl);
    await page.getByLabel("email.delivered").check();
    await page.getByLabel("email.bounced").check();
    await page.getByLabel("Description").fill("billing");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await secretShown(page);
    const [made] = await rows();
    expect(made).toMatchObject({
      url: hookUrl,
      event_types: ["email.delivered", "email.bounced"],
      description: "billing",
      enabled: true,
    });
    if (!made) throw new Error("no endpoint stored");
    expect(await activeSecrets(stack.db.pool, made.id, new Date())).toEqual([secret]);
    await expect.poll(() => page.evaluate("location.hash")).toBe(`#/webhooks/${made.id}`);
    await expect.poll(() => page.locator("h1").textContent()).toBe(hookUrl);
    // Shown once: the page holds no copy of it.
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, "console-webhook", true);

    // Edit: the events and the description; an invalid URL is refused beside its field.
    await page.getByLabel("URL").fill("not a url");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.locator("#edit-endpoint-url-error").textContent()).toContain("URL");
    await page.getByLabel("URL").fill(`${hookUrl}/v2`);
    await page.getByLabel("email.bounced").uncheck();
    await page.getByLabel("Description").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.locator("#endpoint-status").textContent()).toBe("Saved.");
    expect((await rows())[0]).toMatchObject({
      url: `${hookUrl}/v2`,
      event_types: ["email.delivered"],
      description: null,
    });
    expect(await page.locator("h1").textContent()).toBe(`${hookUrl}/v2`);

    await page.getByRole("button", { name: "Disable" }).click();
    await expect.poll(async () => (await rows())[0]?.enabled).toBe(false);
    await expect.poll(() => page.locator("#endpoint-facts").textContent()).toContain("disabled by request");
    await page.getByRole("button", { name: "Enable" }).click();
    await expect.poll(async () => (await rows())[0]?.enabled).toBe(true);

    // Rotation asks first; the new secret signs, the old one keeps signing for the overlap.
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page
      .getByRole("dialog", { name: "Rotate the signing secret?" })
      .getByRole("button", { name: "Rotate" })
      .click();
    const rotated = await secretShown(page);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await activeSecrets(stack.db.pool, made.id, new Date())).toEqual([rotated, secret]);

    // Delete asks first: Cancel keeps it, Delete removes it and goes back to the list.
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page
      .getByRole("dialog", { name: "Delete this endpoint?" })
      .getByRole("button", { name: "Cancel" })
      .click();
    expect(await rows()).toHaveLength(1);
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page
      .getByRole("dialog", { name: "Delete this endpoint?" })
      .getByRole("button", { name: "Delete" })
      .click();
    await expect.poll(() => page.evaluate("location.hash")).toBe("#/webhooks");
    expect(await rows()).toEqual([]);
    await expect.poll(() => page.locator("main").textContent()).toContain("No webhook endpoints yet.");
    // Chromium logs each refused request (the four 400s above); nothing else went wrong.
    expect(errors.filter((e) => !e.includes("status of 400 (Bad Request)"))).toEqual([]);
    expect(errors).toHaveLength(4);
    await context.close();
  });

  it("shows a delivery's attempts and replays it", async () => {
    const endpoint = await stack.call(key, "POST", "/v1/webhooks", {
      url: hookUrl,
      events: ["email.delivered"],
    });
    await stack.send(key, { from: "App <app@hooks.test>", to: "ann@example.test", subject: "Hi", text: "t" });
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/webhooks/${endpoint.id}`);
    const row = page.locator("#deliveries tbody tr").first();
    await expect.poll(() => row.textContent(), { timeout: 60_000 }).toMatch(/email\.delivered.*succeeded/);
    await row.getByRole("button", { name: "Attempts" }).click();
    const attempts = page.getByRole("dialog", { name: "email.delivered attempts" });
    await expect.poll(() => attempts.textContent()).toContain("HTTP 204");
    await attempts.getByRole("button", { name: "Close" }).click();
    await row.getByRole("button", { name: "Replay" }).click();
    // The replayed delivery is pending or delivered again, with a second attempt recorded.
    await expect
      .poll(
        async () => {
          const { rows: found } = await stack.db.pool.query<{ attempts: number }>(
            "select count(*)::int as attempts from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1",
            [endpoint.id],
          );
          return found[0]?.attempts;
        },
        { timeout: 60_000 },
      )
      .toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows an endpoint the operator manages read-only, with its resource's name", async () => {
    const { endpoint } = await createEndpoint(stack.db.pool, {
      account: "hooks",
      name: "billing-hook",
      url: "https://hooks.example.test/op",
      managedBy: "operator",
    });
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/webhooks");
    const listed = page.locator("#endpoints tbody tr", { hasText: "https://hooks.example.test/op" });
    await expect.poll(() => listed.textContent()).toContain("WebhookEndpoint billing-hook");
    await listed.getByRole("link").click();
    const notice = page.locator("#managed-notice");
    await expect.poll(() => notice.textContent()).toContain("billing-hook");
    expect(await notice.textContent()).toContain("namespace hooks");
    for (const name of ["Save changes", "Disable", "Rotate signing secret", "Delete endpoint"]) {
      expect(await page.getByRole("button", { name }).count(), name).toBe(0);
    }
    expect(await page.getByLabel("URL").count()).toBe(0);
    expect(await page.locator("#endpoint-facts").textContent()).toContain("WebhookEndpoint billing-hook");
    expect(errors).toEqual([]);
    await context.close();
    await stack.db.pool.query("delete from webhook_endpoints where id = $1", [endpoint.id]);
  });

  it("tells a key without the webhooks scope why it cannot open them", async () => {
    const sender = await stack.keyWith(["send"], "hooks");
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, sender, "#/emails");
    expect(await page.locator("#nav").getByRole("link", { name: "Webhooks" }).count()).toBe(0);
    await page.evaluate(`location.hash = "#/webhooks"`);
    const refused = page.locator("#scope-refused");
    await expect.poll(() => refused.textContent()).toContain("needs a key with the webhooks scope");
    expect(await refused.textContent()).toContain("this key has send");
    expect(await page.evaluate("location.hash")).toBe("#/webhooks");
    expect(errors).toEqual([]);
    await context.close();
  });
});
