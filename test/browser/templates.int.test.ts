import { createTemplate } from "@mailroom/core/templates";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./axe.ts";
import {
  type ConsoleStack,
  chromiumAvailable,
  launchChromium,
  newPage,
  screenshot,
  signIn,
  startConsoleStack,
} from "./harness.ts";

const SCHEMA = {
  type: "object",
  required: ["order"],
  properties: { order: { type: "object", required: ["id"], properties: { id: { type: "integer" } } } },
  examples: [{ order: { id: 42 } }],
};

/**
 * Issue 33 item 5, templates: the editor (create, save as a new version, errors beside their fields), the
 * versions (view, compare, restore), the preview from example variables, the test send, and an
 * operator-managed template read-only. Chromium against the real API, worker and Postgres.
 */
describe.runIf(chromiumAvailable())("console templates", { timeout: 180_000 }, () => {
  let stack: ConsoleStack;
  let chromium: { browser: Browser; close(): Promise<void> };
  let key: string;
  let templateId = "";

  beforeAll(async () => {
    [stack, chromium] = await Promise.all([startConsoleStack(), launchChromium()]);
    key = await stack.keyWith(["send", "templates"]);
  });
  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  const field = (page: Page, name: string) => page.locator(`#template-${name}`);
  const fieldError = (page: Page, name: string) => page.locator(`#template-${name}-error`);
  const violationsFree = async (page: Page) => expect(await seriousViolations(page)).toEqual([]);

  it("creates a template, shows the API's errors beside their fields, and previews without a 422", async () => {
    const { context, page, errors } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, "#/templates");
    await page.getByRole("link", { name: "New template" }).click();
    await field(page, "name").waitFor();
    await violationsFree(page);
    await field(page, "name").fill("receipt");
    await field(page, "subject").fill("Receipt {{order.id}");
    await field(page, "text").fill("Order {{order.id}} for {{name}}");
    // Enter in a field submits the form, as a keyboard user expects.
    await field(page, "name").press("Enter");
    await expect.poll(() => fieldError(page, "subject").textContent()).toMatch(/^subject line 1, column \d+/);
    expect(await field(page, "subject").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate("document.activeElement.id")).toBe("template-subject");
    await violationsFree(page);

    await field(page, "subject").fill("Receipt {{order.id}}");
    await page.getByRole("button", { name: "Create template" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("receipt");
    templateId = decodeURIComponent(new URL(page.url()).hash.split("/")[2] ?? "");
    // No schema: the preview starts from the variables the parts read, and renders (it used to answer 422).
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Receipt id");
    expect(JSON.parse(await page.locator("#preview-variables").inputValue())).toEqual({
      order: { id: "id" },
      name: "name",
    });
    expect(await page.locator("#preview [role=alert]").count()).toBe(0);
    // The one failed request is the refused create above; no 422 from the preview, no script error.
    expect(errors).toEqual([expect.stringContaining("status of 400 (Bad Request)")]);
    await context.close();
  });

  it("saves a change as a new version, refuses bad examples beside the field, and previews the declared ones", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/templates/${templateId}`);
    await field(page, "variables").fill(JSON.stringify({ ...SCHEMA, examples: [{ order: { id: "x" } }] }));
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(() => fieldError(page, "variables").textContent())
      .toContain("variables.examples[0]: does not match the schema: order.id must be integer");
    await field(page, "variables").fill("{not json");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => fieldError(page, "variables").textContent()).toContain("variables: not JSON");

    await field(page, "variables").fill(JSON.stringify(SCHEMA));
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator(".form-status").textContent()).toBe("Saved as v2");
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Receipt 42");
    await screenshot(page, "template", true);
    // The variables follow the chosen version while the person has not edited them.
    await page.locator("#preview-version").selectOption("1");
    await expect.poll(() => page.locator("#preview-variables").inputValue()).toContain('"name": "name"');
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Receipt id");
    const { rows } = await stack.db.pool.query(
      "select version, variables from template_versions where template_id = $1 order by version",
      [templateId],
    );
    expect(rows).toEqual([
      { version: 1, variables: null },
      { version: 2, variables: SCHEMA },
    ]);
    await context.close();
  });

  it("lists versions, compares two, shows an old one and restores it as a new version", async () => {
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/templates/${templateId}`);
    await page.getByRole("button", { name: "Compare" }).click();
    const diff = page.locator("#version-diff");
    await expect.poll(() => diff.textContent()).toContain("Changes from v1 to v2");
    expect(await diff.textContent()).toContain("subject: unchanged");
    expect(await diff.locator("pre[data-part=variables] .ins").first().textContent()).toBe("+ {\n");
    await violationsFree(page);

    await page.locator("table.versions").getByRole("link", { name: "v1" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("receipt v1");
    expect(await page.locator("pre[data-part=variables]").textContent()).toBe("(none)");
    await violationsFree(page);
    await page.getByRole("button", { name: "Restore v1 as v3" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("receipt");
    const current = await stack.call(key, "GET", `/v1/templates/${templateId}`);
    expect(current).toMatchObject({ version: 3, variables: null, subject: "Receipt {{order.id}}" });
    await context.close();
  });

  it("sends a test of the template to a typed address, by keyboard, and links the email in the log", async () => {
    await stack.call(key, "PATCH", `/v1/templates/${templateId}`, { variables: SCHEMA });
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/templates/${templateId}`);
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Receipt 42");
    await page.locator("#test-from").fill("Acme <hi@acme.test>");
    await page.locator("#test-to").fill("ann@example.test");
    // Tab from the address reaches the button; Enter on it sends.
    await page.locator("#test-to").press("Tab");
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Send test");
    await page.keyboard.press("Enter");
    const link = page.locator("#test-send-email");
    await link.waitFor();
    expect(await page.locator("#test-send-result").textContent()).toMatch(/^Test queued: /);
    const id = await link.textContent();
    const { rows } = await stack.db.pool.query("select subject from emails where id = $1", [id]);
    expect(rows).toEqual([{ subject: "Receipt 42" }]);
    await link.click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Receipt 42");
    await context.close();
  });

  it("explains why a key without the send scope cannot send a test", async () => {
    const templatesOnly = await stack.keyWith(["templates"]);
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, templatesOnly, `#/templates/${templateId}`);
    await expect
      .poll(() => page.locator("#test-send-unavailable").textContent())
      .toContain("needs the send scope; this key has templates");
    expect(await page.locator("#test-to").count()).toBe(0);
    await context.close();
  });

  it("shows an operator-managed template read-only, naming its resource", async () => {
    const managed = await createTemplate(stack.db.pool, {
      account: "default",
      name: "from-crd",
      subject: "Hi {{name}}",
      text: "Hello",
      managedBy: "operator",
    });
    await stack.db.pool.query(
      `insert into operator_bindings (kind, namespace, name, uid, target_id)
       values ('Template', 'default', 'welcome-crd', 'uid-1', $1)`,
      [managed.id],
    );
    const { context, page } = await newPage(chromium.browser);
    await signIn(page, stack.base, key, `#/templates/${managed.id}`);
    await expect
      .poll(() => page.locator("#managed-note").textContent())
      .toContain("Managed by Template/welcome-crd in namespace default");
    expect(await field(page, "subject").getAttribute("readonly")).toBe("");
    expect(await page.getByRole("button", { name: "Save" }).count()).toBe(0);
    await expect.poll(() => page.locator("#preview-subject").textContent()).toBe("Hi name");
    await violationsFree(page);
    await context.close();
  });
});
