import { createTlsRecorder } from "@mailroom/core/tls-reports";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/wait.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  keepPublishingShaping,
  launchChromium,
  newPage,
  screenshot,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/**
 * Issue 32 item 6: the console's transit page, per receiving domain, from mail the real worker delivered
 * through a real SMTP relay that accepts some recipients and refuses others, and from a direct delivery's
 * outcomes recorded by the deliver task's recorder, with a provider's shaping state as a worker publishes it.
 */
describe.runIf(chromiumAvailable())("the console's transit page", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let stopPublishing: (() => Promise<void>) | undefined;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack({}, { production: true }), launchChromium()]);
    const sink = stack.sink;
    if (!sink) throw new Error("a production stack has a sink");
    sink.answer = (recipient) =>
      recipient.startsWith("gone") ? { code: 550, message: "5.1.1 no such user" } : { code: 250 };
    key = await stack.keyWith(["send"], "transit");
    await stack.send(key, { from: "app@one.test", to: "ann@example.test", subject: "a", text: "a" });
    await stack.send(key, { from: "app@one.test", to: "gone@example.test", subject: "b", text: "b" });
    // Another tenant's mail to the same domain: never on this account's page.
    const other = await stack.keyWith(["send"], "someone-else");
    await stack.send(other, { from: "x@two.test", to: "bob@example.test", subject: "c", text: "c" });
    await until(
      async () => (await stack.db.pool.query("select 1 from transit_counts where kind <> 'tls'")).rowCount,
      (rows) => rows === 3,
      60_000,
    );
    // A direct delivery to a provider that throttled us, and that provider's state as a worker published it.
    await createTlsRecorder(stack.db.pool)("transit", [
      {
        recipient: "eve@gmail.test",
        status: "temporary",
        code: 421,
        rateLimited: true,
        response: "421 4.7.28 unusual rate of mail; destination gmail backed off for 30 s",
        destination: "group:gmail",
        tls: {
          mechanism: "mta-sts",
          policyDomain: "gmail.test",
          policyType: "sts",
          enforced: true,
          mxHost: "mx.gmail.test",
          result: "success",
          tls: true,
          verified: true,
        },
      },
    ]);
    stopPublishing = await keepPublishingShaping(stack.db.pool, "worker-a", [
      {
        destination: "group:gmail",
        level: 0.5,
        concurrency: 5,
        ratePerMinute: 300,
        inFlight: 0,
        pausedUntil: new Date(Date.now() + 3_600_000),
        lastReply: "421 4.7.28 unusual rate of mail",
      },
    ]);
  });
  afterAll(async () => {
    await stopPublishing?.();
    await chromium?.close();
    await stack?.close();
  });

  it("is reached from the navigation by keyboard and shows each domain's transit", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key);
    await expect.poll(() => page.url()).toContain("#/overview");
    // The overview, once drawn, takes the focus to its heading (console/src/keyboard.ts): wait for that, so it
    // does not move the focus in the middle of the walk. Then back through the navigation (it comes before the
    // page's content) until its Transit link has the focus, and follow it with Enter.
    await expect.poll(() => page.evaluate("document.activeElement?.tagName")).toBe("H1");
    let focused = "";
    for (let i = 0; i < 30 && focused !== "Transit"; i += 1) {
      await page.keyboard.press("Shift+Tab");
      focused = await page.evaluate("document.activeElement?.textContent ?? ''");
    }
    expect(focused).toBe("Transit");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toContain("#/transit");
    // The hash changes before the page is drawn: the navigation marks the page once it is.
    await expect.poll(() => page.locator('nav a[aria-current="page"]').textContent()).toBe("Transit");

    const rows = page.locator("#transit-domains tbody tr");
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    const cells = async (domain: string) =>
      rows
        .filter({ has: page.locator("td", { hasText: new RegExp(`^${domain}$`) }) })
        .locator("td")
        .allTextContents();

    // The relayed mail: one delivered, one bounced with the relay's reply; the other tenant's not counted.
    const example = await cells("example.test");
    expect(example.slice(0, 4)).toEqual(["example.test", "1", "1", "0"]);
    expect(example[4]).toMatch(/^relay, /);
    // The last failure is the newest of the bounce and the two sessions without TLS (the test relay offers no
    // STARTTLS, a failure for the view): which came last depends on the order the two emails left in.
    expect(example[5]).toMatch(/5\.1\.1 no such user|no TLS \(STARTTLS not offered or failed\)/);
    expect(example[6]).toBe("—");

    // The throttled provider: the deferral's reason, the session, and the provider backed off now.
    const gmail = await cells("gmail.test");
    expect(gmail.slice(0, 3)).toEqual(["gmail.test", "0", "0"]);
    expect(gmail[3]).toBe("1rate limited by the receiver: 1");
    expect(gmail[4]).toBe("mta-sts, success: 1");
    expect(gmail[5]).toContain("421 4.7.28 unusual rate of mail");
    expect(gmail[6]).toMatch(
      /^gmail backed off until .+5 sessions, 300\/min, 50 % of its limitsafter "421 4\.7\.28 unusual rate of mail"$/,
    );

    await page.getByLabel("Period").selectOption("7d");
    await expect.poll(() => page.url()).toContain("#/transit/7d");
    await expect.poll(() => rows.count()).toBe(2);
    await screenshot(page, "console-transit", true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
