import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider.ts";
import { freePort } from "../support/ports.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  startConsoleStack,
} from "./harness.ts";

const ADMIN = ["send", "domains", "templates", "webhooks"];

/**
 * Issue 33 item 3 (ADR 0063): people sign in to the console with a real OpenID Connect provider (the certified
 * `oidc-provider`, its development login pages), in Chromium: code + PKCE, `state` and nonce, roles from
 * groups, a person's key revoked at sign-out and when idle, and no key for a person without a role.
 */
describe.runIf(chromiumAvailable())("people sign in with OpenID Connect", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let idp: TestOidcProvider;
  let chromium: { browser: Browser; close(): Promise<void> };

  beforeAll(async () => {
    const [apiPort, idpPort] = [await freePort(), await freePort()];
    const redirectUri = `https://localhost:${apiPort}/console/`;
    idp = await startOidcProvider({
      port: idpPort,
      redirectUri,
      groups: {
        alice: ["mail-admins"],
        bob: ["support", "mail-viewers"],
        carol: ["marketing"],
        dave: ["mail-viewers", "shop-team"],
      },
    });
    [stack, chromium] = await Promise.all([
      startConsoleStack({
        MAILROOM_API_PORT: String(apiPort),
        MAILROOM_OIDC_ISSUER: idp.issuer,
        MAILROOM_OIDC_CLIENT_ID: idp.clientId,
        MAILROOM_OIDC_CLIENT_SECRET: idp.clientSecret,
        MAILROOM_OIDC_REDIRECT_URI: redirectUri,
        MAILROOM_OIDC_SCOPES: "openid email groups",
        MAILROOM_OIDC_IDLE_TIMEOUT_SECONDS: "600",
        MAILROOM_OIDC_RECHECK_SECONDS: "600",
        MAILROOM_OIDC_ROLES: JSON.stringify([
          { group: "mail-admins", account: "default", scopes: ADMIN },
          { group: "mail-viewers", account: "default", scopes: ["domains"] },
          { group: "shop-team", account: "shop", scopes: ["send"] },
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

  /** Through the console's button and the provider's login and consent pages, back to the console. */
  async function signInAs(page: Page, login: string): Promise<void> {
    await page.goto(`${stack.base}/console/`);
    await page.getByRole("button", { name: "Sign in with your company account" }).click();
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${stack.base}/console/**`);
  }
  const tabKey = (page: Page) => page.evaluate(() => sessionStorage.getItem("mailroom.apiKey") ?? "");
  const keyRow = async (keyId: string) =>
    (await stack.db.pool.query("select * from api_keys where key_id = $1", [keyId])).rows[0];
  /** Who revoked the key, as the audit trail has it (Mailroom's own revocations name the part, and why). */
  const revokedBy = async (keyId: string) =>
    (
      await stack.db.pool.query(
        "select actor_kind, actor, detail->>'reason' as reason from audit_events where action = 'key.revoked' and target = $1",
        [keyId],
      )
    ).rows;
  const answer = (promise: Promise<unknown>) =>
    promise.then(
      () => "2xx",
      (error: Error) => error.message,
    );

  it("signs a person in through the provider: a key of the spec's shape, owned, 30 days, revoked at sign-out", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "alice");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.locator("#who").textContent()).toContain("alice@example.test");
    expect(await page.getByRole("link", { name: "Emails" }).count()).toBe(1);
    // The code does not linger in the address bar.
    expect(new URL(page.url()).search).toBe("");

    const key = await tabKey(page);
    expect(key).toMatch(/^mrk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    const keyId = key.split("_")[1] as string;
    const row = await keyRow(keyId);
    expect(row.owner_issuer).toBe(idp.issuer);
    expect(row.owner_subject).toBe("alice");
    expect(row.owner_email).toBe("alice@example.test");
    expect([...row.scopes].sort()).toEqual([...ADMIN].sort());
    const days = (row.expires_at.getTime() - row.created_at.getTime()) / 86_400_000;
    expect(days).toBe(30);
    expect(await answer(stack.call(key, "GET", "/v1/emails"))).toBe("2xx");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    await expect.poll(async () => (await keyRow(keyId)).revoked_at).not.toBeNull();
    expect(await answer(stack.call(key, "GET", "/v1/emails"))).toContain("api_key_revoked");
    await context.close();
  });

  it("enforces a viewer's role in the console and in the API: no Emails, and sending is 403 insufficient_scope", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "bob");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.getByRole("link", { name: "Domains" }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Emails" }).count()).toBe(0);
    const key = await tabKey(page);
    const sent = await answer(
      stack.call(key, "POST", "/v1/send", {
        from: "a@example.test",
        to: ["b@example.test"],
        subject: "s",
        text: "t",
      }),
    );
    expect(sent).toContain("answered 403");
    expect(sent).toContain("insufficient_scope");
    await context.close();
  });

  it("refuses a person whose groups have no role, saying why, and mints nothing", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "carol");
    const alert = page.getByRole("alert").filter({ hasText: "no group" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      "carol@example.test is signed in at the provider but belongs to no group",
    );
    expect(await tabKey(page)).toBe("");
    const { rows } = await stack.db.pool.query("select 1 from api_keys where owner_subject = 'carol'");
    expect(rows).toEqual([]);
    await context.close();
  });

  it("refuses an answer whose state this tab did not send (a forged state)", async () => {
    const { context, page } = await newPage(chromium.browser);
    let exchanged = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/auth/oidc/session")) exchanged += 1;
    });
    // The tab started a sign-in (its state is stored), then lands on an answer carrying someone else's state.
    await page.goto(`${stack.base}/console/`);
    await page.getByRole("button", { name: "Sign in with your company account" }).click();
    await page.locator("input[name=login]").waitFor();
    await page.goto(`${stack.base}/console/?code=stolen-code&state=forged-state`);
    const alert = page.getByRole("alert").filter({ hasText: "state" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("its state does not match");
    expect(exchanged).toBe(0);
    expect(await tabKey(page)).toBe("");
    await context.close();
  });

  it("ends an idle session: the key is revoked at its next use and the console says so", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "alice");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const key = await tabKey(page);
    const keyId = key.split("_")[1] as string;
    // Idle for longer than MAILROOM_OIDC_IDLE_TIMEOUT_SECONDS (600 s): the clock is moved, not waited for.
    await stack.db.pool.query(
      "update api_keys set session_active_at = now() - interval '11 minutes' where key_id = $1",
      [keyId],
    );
    await page.reload();
    const alert = page.getByRole("alert").filter({ hasText: "signed out" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("idle");
    expect((await keyRow(keyId)).revoked_at).not.toBeNull();
    expect(await answer(stack.call(key, "GET", "/v1/emails"))).toContain("the session was idle too long");
    // In the audit trail as Mailroom's own change, with why.
    expect(await revokedBy(keyId)).toEqual([
      { actor_kind: "system", actor: "session-idle-timeout", reason: "the session was idle too long" },
    ]);
    await context.close();
  });

  it("revokes a person's key once the provider says they left the group, and keeps it while they stay", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "alice");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const keyId = (await tabKey(page)).split("_")[1] as string;
    expect((await keyRow(keyId)).owner_refresh_token).not.toBeNull();
    const recheckDue = () =>
      stack.db.pool.query(
        "update api_keys set owner_checked_at = now() - interval '11 minutes' where key_id = $1 returning owner_checked_at",
        [keyId],
      );
    // Still in the group: the re-check (MAILROOM_OIDC_RECHECK_SECONDS, 600 s, made due by moving the clock) passes.
    const before = (await recheckDue()).rows[0].owner_checked_at as Date;
    await page.reload();
    await page.getByRole("link", { name: "Emails" }).waitFor();
    const row = await keyRow(keyId);
    expect(row.revoked_at).toBeNull();
    expect(row.owner_checked_at.getTime()).toBeGreaterThan(before.getTime());

    idp.groups.set("alice", ["support"]);
    await recheckDue();
    await page.reload();
    const alert = page.getByRole("alert").filter({ hasText: "signed out" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("alice@example.test no longer has a role");
    expect((await keyRow(keyId)).revoked_at).not.toBeNull();
    expect(await revokedBy(keyId)).toEqual([
      {
        actor_kind: "system",
        actor: "oidc-recheck",
        reason: expect.stringContaining("alice@example.test no longer has a role"),
      },
    ]);
    idp.groups.set("alice", ["mail-admins"]);
    await context.close();
  });

  it.each([
    ["nonce", "the ID token's nonce is not this sign-in's"],
    ["codeVerifier", "the provider refused the code (invalid_grant)"],
  ])("refuses a sign-in whose %s is not the one the tab made", async (field, reason) => {
    const { context, page } = await newPage(chromium.browser);
    // What reaches the API is altered in flight: the provider's code with another nonce or PKCE verifier.
    await page.route("**/auth/oidc/session", async (route) => {
      const body = JSON.parse(route.request().postData() ?? "{}");
      body[field] = "A".repeat(43);
      await route.continue({ postData: JSON.stringify(body) });
    });
    await signInAs(page, "alice");
    const alert = page.getByRole("alert").filter({ hasText: "Sign-in failed" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(reason);
    expect(await tabKey(page)).toBe("");
    await context.close();
  });

  it("lets a person with roles in two accounts switch: a new key for the other account, the old one revoked", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signInAs(page, "dave");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    const first = (await tabKey(page)).split("_")[1] as string;
    expect((await keyRow(first)).account).toBe("default");
    await page.getByLabel("Account").selectOption("shop");
    // Back through the provider, whose session answers at once (no login page), to a key for `shop`.
    await page.getByRole("link", { name: "Emails" }).waitFor();
    const second = (await tabKey(page)).split("_")[1] as string;
    const row = await keyRow(second);
    expect([row.account, row.scopes]).toEqual(["shop", ["send"]]);
    expect((await keyRow(first)).revoked_at).not.toBeNull();
    await context.close();
  });
});
