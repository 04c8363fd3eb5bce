import { createDeliveryStore } from "@mailroom/core/emails";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  signIn,
  startConsoleStack,
} from "./harness.ts";

/** An email's page shows each delivery attempt's TLS sessions as readable lines (issue 32 item 6, ADR 0058). */
describe.runIf(chromiumAvailable())("the TLS outcome on an email's page", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let emailId: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send"]);
    // Scheduled for tomorrow, so the worker leaves it: the attempt is claimed and recorded here, through the
    // delivery store, with the outcome a TLS-checking transport reports (those transports are issue 32 item 1).
    const tomorrow = new Date(Date.now() + 86_400_000);
    emailId = await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "ann@receiver.test",
      subject: "Over verified TLS",
      text: "Hello",
      scheduledAt: tomorrow.toISOString(),
    });
    const store = createDeliveryStore(stack.db.pool);
    const claimed = await store.claim(emailId, new Date(tomorrow.getTime() + 60_000));
    if (claimed.outcome !== "send") throw new Error(`not claimed: ${JSON.stringify(claimed)}`);
    await store.record({
      claimed,
      outcomes: [
        {
          recipient: "ann@receiver.test",
          status: "accepted",
          code: 250,
          response: "250 2.0.0 queued",
          tls: {
            mechanism: "mta-sts",
            policyDomain: "receiver.test",
            policyType: "sts",
            policyStrings: ["version: STSv1", "mode: enforce", "mx: mx.receiver.test", "max_age: 86400"],
            enforced: true,
            mxHost: "mx.receiver.test",
            result: "success",
            tls: true,
            verified: true,
          },
        },
      ],
      policy: { baseDelaySeconds: 60, maxDelaySeconds: 3600, horizonSeconds: 86_400 },
    });
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("lists the session's mechanism, result, verification and MX on the delivered event", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${emailId}`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("Over verified TLS");
    const delivered = page.locator("#timeline li", { hasText: "delivered" });
    await expect
      .poll(() => delivered.textContent())
      .toContain("Tls: mx.receiver.test: verified TLS (mta-sts, success)");
    expect(await delivered.textContent()).not.toContain('"mechanism"');
    await context.close();
  });
});
