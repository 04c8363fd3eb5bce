import { gzipSync } from "node:zlib";
import { getReportOutcome, storeReport } from "@mailroom/core/bounces";
import { getDomain, recordChecks } from "@mailroom/core/domains";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markDomainVerified } from "../support/db.ts";
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

const DOMAIN = "health.example.com";

/** An aggregate report of yesterday: one sender passing DMARC, one source failing it (a spoofer). */
function dmarcReport(): Buffer {
  const begin = Math.floor(Date.now() / 1000) - 86_400;
  const row = (ip: string, count: number, result: string) =>
    `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none` +
    `</disposition><dkim>${result}</dkim><spf>${result}</spf></policy_evaluated></row><identifiers>` +
    `<header_from>${DOMAIN}</header_from></identifiers></record>`;
  return gzipSync(
    `<?xml version="1.0"?><feedback><report_metadata><org_name>receiver.example</org_name>` +
      `<report_id>console-1</report_id><date_range><begin>${begin}</begin><end>${begin + 86_399}</end>` +
      `</date_range></report_metadata><policy_published><domain>${DOMAIN}</domain><p>none</p>` +
      `</policy_published>${row("192.0.2.10", 75, "pass")}${row("203.0.113.66", 25, "fail")}</feedback>`,
  );
}

/** Issue 29: a domain's page shows its compliance checks, its DKIM rotation state and its DMARC results. */
describe.runIf(chromiumAvailable())("the console's domain health", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([
      startConsoleStack({ MAILROOM_INBOUND_MX_HOST: "mx.mailroom.test" }),
      launchChromium(),
    ]);
    key = await stack.keyWith(["domains"]);
    await stack.call(key, "POST", "/v1/domains", { name: DOMAIN });
    const domain = await getDomain(stack.db.pool, "default", DOMAIN);
    if (!domain) throw new Error("no domain");
    await markDomainVerified(stack.db.pool, domain.id);
    await recordChecks(
      stack.db.pool,
      domain,
      [
        { name: "SPF", status: "pass", reason: "the relay is authorised" },
        { name: "DKIM", status: "pass", reason: "published and aligned" },
        { name: "DMARC", status: "fail", reason: "no DMARC record at _dmarc.health.example.com" },
      ],
      new Date(),
    );
    // The report as the bounce receiver stores it; the stack's worker runs its process_report job.
    const to = `dmarc@bounces.${DOMAIN}`;
    const raw = await new MailComposer({
      from: "dmarc@receiver.example",
      to,
      subject: `Report Domain: ${DOMAIN}`,
      text: "Aggregate report attached.",
      attachments: [{ filename: "report.xml.gz", content: dmarcReport(), contentType: "application/gzip" }],
    })
      .compile()
      .build();
    const id = await storeReport(stack.db.pool, {
      remoteAddress: "127.0.0.1",
      helo: "receiver.example",
      mailFrom: undefined,
      rcptTo: [to],
      raw,
    });
    const outcome = await until(
      () => getReportOutcome(stack.db.pool, id),
      (o) => o !== undefined && o.status !== "received",
      60_000,
    );
    expect(outcome?.status).toBe("processed");
  });

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  it("shows the checks, the DKIM selectors with their dates, and the DMARC pass rate and failing source", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/domains/${DOMAIN}`);
    const checks = page.locator("table.checks tbody tr");
    await expect
      .poll(() => checks.allTextContents())
      .toEqual([
        expect.stringMatching(/^SPFpassthe relay is authorised/),
        expect.stringMatching(/^DKIMpasspublished and aligned/),
        expect.stringMatching(/^DMARCfailno DMARC record at _dmarc\.health\.example\.com/),
      ]);
    const keys = page.locator("table.dkim-keys tbody tr");
    await expect.poll(() => keys.count()).toBeGreaterThanOrEqual(1);
    expect(await keys.first().textContent()).toMatch(/rsaactive/);
    expect(await keys.first().locator("time").count()).toBeGreaterThanOrEqual(1);
    await expect
      .poll(() => page.locator(".facts").allTextContents())
      .toContainEqual(expect.stringContaining("Rotation interval180 days"));
    await expect.poll(() => page.locator(".dmarc-pass-rate").textContent()).toBe("75.0 %");
    const failing = page.locator("table.dmarc-failing tbody tr");
    await expect
      .poll(() => failing.allTextContents())
      .toEqual([expect.stringMatching(/^203\.0\.113\.662525.*0\.0 %.*receiver\.example/)]);
    await expect.poll(() => page.locator("table.dmarc-sources tbody tr").count()).toBe(2);
    expect(await page.locator("section.dmarc").textContent()).toContain(`dmarc@bounces.${DOMAIN}`);
    await screenshot(page, "domain-health", true);
    await context.close();
  });
});
