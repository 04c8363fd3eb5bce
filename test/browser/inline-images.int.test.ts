import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import PostalMime from "postal-mime";
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

// A 1×1 PNG: loaded, its naturalWidth is 1; blocked by the frame's CSP (a `cid:` URL), it is 0.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Issue 33 item 5: inline `cid:` images in the email view and the dev inbox, and downloads from the log. */
describe.runIf(chromiumAvailable())("inline images and downloads", { timeout: 120_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let emailId: string;

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send"], "inline");
    emailId = await stack.send(key, {
      from: "Acme <hello@acme.test>",
      to: "dev@example.test",
      subject: "With a logo",
      html: '<p>Hello</p><img id="logo" alt="Acme" src="cid:logo@acme.test">',
      attachments: [
        {
          filename: "notes.txt",
          contentType: "text/plain",
          content: Buffer.from("hello notes").toString("base64"),
        },
        { filename: "logo.png", contentType: "image/png", content: PNG, contentId: "logo@acme.test" },
      ],
    });
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  const logoWidth = (page: Page) =>
    page
      .frameLocator("iframe.email-frame")
      .locator("img#logo")
      .evaluate((img) => {
        const image = img as unknown as { complete: boolean; naturalWidth: number };
        return image.complete ? image.naturalWidth : -1;
      });

  it("shows the cid: image in the email view, without loosening the frame's script rules", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${emailId}`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("With a logo");
    await expect.poll(() => logoWidth(page)).toBe(1);
    expect(await page.locator("iframe.email-frame").getAttribute("sandbox")).toBe("");
    expect(await page.frameLocator("iframe.email-frame").locator("img#logo").getAttribute("src")).toMatch(
      /^data:image\/png;base64,/,
    );
    await screenshot(page, "email-inline-image");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the cid: image in the dev inbox", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/inbox");
    const row = page.locator("#inbox-list tbody tr", { hasText: "With a logo" });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    await row.getByRole("link").click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("With a logo");
    await expect.poll(() => logoWidth(page)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("downloads an attachment from the email view with the Bearer key", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/emails/${emailId}`);
    await page.getByRole("tab", { name: "Attachments (2)" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).first().click(),
    ]);
    expect(download.suggestedFilename()).toBe("notes.txt");
    expect(await readFile(await download.path(), "utf8")).toBe("hello notes");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("downloads an API send's .eml: the message the capture server received, attachments included", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    const downloadEml = async () => {
      const [eml] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download .eml" }).click(),
      ]);
      return { name: eml.suggestedFilename(), bytes: await readFile(await eml.path()) };
    };
    await signIn(page, stack.base, key, `#/emails/${emailId}`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("With a logo");
    const fromLog = await downloadEml();
    expect(fromLog.name).toBe(`${emailId}.eml`);
    const parsed = await PostalMime.parse(fromLog.bytes);
    expect(parsed.subject).toBe("With a logo");
    expect(
      parsed.attachments.map((a) => [a.filename, a.contentId, Buffer.from(a.content as ArrayBuffer)]),
    ).toEqual(
      expect.arrayContaining([
        ["notes.txt", undefined, Buffer.from("hello notes")],
        ["logo.png", "<logo@acme.test>", Buffer.from(PNG, "base64")],
      ]),
    );
    // The dev inbox keeps what the worker handed the capture server (unsigned: acme.test is not verified).
    await page.goto(`${stack.base}/#/inbox`);
    const row = page.locator("#inbox-list tbody tr", { hasText: "With a logo" });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    await row.getByRole("link").click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("With a logo");
    expect((await downloadEml()).bytes.equals(fromLog.bytes)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
