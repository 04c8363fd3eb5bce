import { createKey } from "@mailroom/core/keys";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider.ts";
import { freePort } from "../support/ports.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  screenshot,
  startConsoleStack,
} from "./harness.ts";

/** The harness's sign-in with a pasted key, beside this stack's OIDC button ("Sign in with your company …"). */
async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** The serious and critical axe-core violations on the page as it is now (as accessibility.int.test.ts). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Issue 33 item 5 (ADR 0069): the console's Keys page, offered only to a key with the `keys` scope: lists the
 * account's keys, creates one (its secret shown once, with a copy button and a warning), revokes one after a
 * confirmation, in Chromium with axe-core. A person signed in through a real OpenID Connect provider who
 * makes a key is recorded in the audit trail as the person, with their key's id.
 */
describe.runIf(chromiumAvailable())("the console's Keys page", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let idp: TestOidcProvider;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    const [apiPort, idpPort] = [await freePort(), await freePort()];
    const redirectUri = `https://localhost:${apiPort}/console/`;
    idp = await startOidcProvider({ port: idpPort, redirectUri, groups: { alice: ["mail-admins"] } });
    [stack, chromium] = await Promise.all([
      startConsoleStack({
        MAILROOM_API_PORT: String(apiPort),
        MAILROOM_OIDC_ISSUER: idp.issuer,
        MAILROOM_OIDC_CLIENT_ID: idp.clientId,
        MAILROOM_OIDC_CLIENT_SECRET: idp.clientSecret,
        MAILROOM_OIDC_REDIRECT_URI: redirectUri,
        MAILROOM_OIDC_SCOPES: "openid email groups",
        MAILROOM_OIDC_ROLES: JSON.stringify([
          { group: "mail-admins", account: "acme", scopes: ["send", "keys", "audit"] },
        ]),
      }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
    await idp?.close();
  });

  const row = (keyId: string) =>
    stack.db.pool.query("select * from api_keys where key_id = $1", [keyId]).then((r) => r.rows[0]);

  it("lists, creates (secret shown once) and revokes after a confirmation, with no serious axe violation", async () => {
    const admin = await createKey(stack.db.pool, {
      account: "acme",
      name: "admin laptop",
      scopes: ["keys", "send", "audit"],
      expires: "never",
    });
    const declared = await createKey(stack.db.pool, {
      account: "acme",
      name: "acme/deployer",
      scopes: ["send"],
      expires: "never",
      managedBy: "operator",
    });
    const sender = await createKey(stack.db.pool, {
      account: "acme",
      name: "old sender",
      scopes: ["send"],
      expires: "never",
    });
    const later = await stack.send(sender.fullKey, {
      from: "a@acme.test",
      to: "b@example.test",
      subject: "later",
      text: "t",
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });

    const { context, page, errors } = await newPage(chromium.browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.base });
    await signIn(page, stack.base, admin.fullKey);
    await page.getByRole("link", { name: "Keys" }).click();
    const table = page.locator("#keys-table");
    await table.waitFor();
    expect(await table.locator("tbody tr").count()).toBe(3);
    const text = (await table.textContent()) ?? "";
    for (const k of [admin, declared, sender]) expect(text).toContain(k.key.keyId);
    expect(await table.locator("tr", { hasText: admin.key.keyId }).textContent()).toContain("this key");
    const declaredRow = table.locator("tr", { hasText: declared.key.keyId });
    expect(await declaredRow.textContent()).toContain("delete its ApiKey resource");
    expect(await declaredRow.getByRole("button").count()).toBe(0);
    // Only the scopes the signed-in key holds are offered.
    const offered = await page
      .locator("#create-key input[type=checkbox]")
      .evaluateAll((boxes) => boxes.map((b) => b.getAttribute("value")));
    expect(offered).toEqual(["keys", "send", "audit"]);
    expect(await seriousViolations(page)).toEqual([]);

    // Create: the secret is shown once, with a warning and a copy button.
    await page.getByLabel("Name").fill("billing");
    await page.locator("#key-scope-send").check();
    await page.getByLabel("Expires").selectOption("30d");
    await page.getByRole("button", { name: "Create key" }).click();
    const panel = page.locator("#new-key");
    await panel.waitFor();
    expect(await panel.textContent()).toContain("shown only this once");
    const full = await page.getByLabel("New API key").inputValue();
    expect(full).toMatch(/^mrk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await expect.poll(() => panel.textContent()).toContain("Copied.");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(full);
    for (const colorScheme of ["dark", "light"] as const) {
      await page.emulateMedia({ colorScheme });
      expect(await seriousViolations(page), colorScheme).toEqual([]);
    }
    await screenshot(page, "console-keys-created");
    const made = await row(full.split("_")[1] as string);
    expect(made).toMatchObject({ name: "billing", scopes: ["send"], managed_by: "api" });
    expect((made.expires_at.getTime() - made.created_at.getTime()) / 86_400_000).toBe(30);
    // It works (the account's log, with the scope it was given); `call` throws unless 2xx.
    expect((await stack.call(full, "GET", "/v1/emails")).data).toHaveLength(1);
    await expect.poll(() => table.locator("tbody tr").count()).toBe(4);
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await panel.count()).toBe(0);
    expect(await page.content()).not.toContain(full.split("_")[2]);

    // Revoke: asked first; Cancel changes nothing.
    const label = `old sender (${sender.key.keyId})`;
    await page.getByRole("button", { name: `Revoke ${label}` }).click();
    expect(await page.getByRole("dialog", { name: `Revoke ${label}?` }).textContent()).toContain(
      "unsent mail fails",
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Cancel" }).click();
    expect((await row(sender.key.keyId)).revoked_at).toBeNull();
    await page.getByRole("button", { name: `Revoke ${label}` }).click();
    await page.getByRole("button", { name: "Revoke now" }).click();
    await expect.poll(() => page.locator("#keys-notice").textContent()).toContain(`Revoked ${label}`);
    expect(await page.locator("#keys-notice").textContent()).toContain("1 unsent email of it failed");
    expect((await row(sender.key.keyId)).revoked_at).not.toBeNull();
    const email = await stack.call(admin.fullKey, "GET", `/v1/emails/${later}`);
    expect(email).toMatchObject({ status: "failed", failureReason: "api_key_revoked" });
    // The list shows active keys: the revoked one has left it, "all" shows it revoked.
    await expect.poll(() => table.locator("tbody tr").count()).toBe(3);
    await page.getByLabel("Show").selectOption("");
    await expect
      .poll(() => table.locator("tr", { hasText: sender.key.keyId }).textContent())
      .toContain("revoked");
    expect(errors).toEqual([]);
    await context.close();

    // A key without `keys` is not offered the page, and its address leads elsewhere.
    const other = await newPage(chromium.browser);
    await signIn(other.page, stack.base, await stack.keyWith(["send", "audit"], "acme"));
    expect(await other.page.getByRole("link", { name: "Keys" }).count()).toBe(0);
    await other.page.evaluate(`location.hash = "#/keys"`);
    await expect.poll(() => other.page.url()).not.toContain("#/keys");
    await other.context.close();
  });

  it("records a signed-in person's new key in the audit trail as the person, with their key's id", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await page.goto(`${stack.base}/console/`);
    await page.getByRole("button", { name: "Sign in with your company account" }).click();
    await page.locator("input[name=login]").fill("alice");
    await page.locator("input[name=password]").fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const personKeyId = (
      (await page.evaluate(() => sessionStorage.getItem("mailroom.apiKey") ?? "")).split("_")[1] ?? ""
    ).trim();
    expect(personKeyId).toMatch(/^[0-9A-Za-z]{12}$/);

    await page.getByRole("link", { name: "Keys" }).click();
    await page.locator("#keys-table").waitFor();
    await page.getByLabel("Name").fill("alice's cron");
    await page.locator("#key-scope-send").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const full = await page.getByLabel("New API key").inputValue();
    const madeId = full.split("_")[1] as string;

    await page.getByRole("link", { name: "Audit" }).click();
    const created = page.locator("#audit-table tr", { hasText: madeId });
    await created.waitFor();
    const text = (await created.textContent()) ?? "";
    expect(text).toContain("key.created");
    expect(text).toContain("Person");
    expect(text).toContain("alice@example.test (alice)");
    expect(text).toContain(`with key ${personKeyId}`);
    await screenshot(page, "console-audit-person");
    // The provider's own login pages ask for a web font and a favicon; the console's errors are what count.
    expect(errors.filter((e) => e.includes(stack.base))).toEqual([]);
    await context.close();
  });
});
