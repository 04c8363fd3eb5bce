import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { MailroomError } from "../errors/index.ts";
import { renderTemplateForSend } from "./render-for-send.ts";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  getTemplateByName,
  getTemplateVersion,
  listTemplates,
  updateTemplate,
} from "./store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof MailroomError) return error.code;
    throw error;
  }
}

const base = { subject: "Hello {{name}}", html: "<p>Hello {{name}}</p>", text: "Hello {{name}}" };

describe("templates on Postgres", () => {
  it("creates version 1 and reads it back by id and by name, only in its account", async () => {
    const created = await createTemplate(db.pool, { account: "acme", name: "welcome", ...base });
    expect(created).toMatchObject({
      account: "acme",
      name: "welcome",
      managedBy: "api",
      version: 1,
      ...base,
    });
    expect(created.versions.map((v) => v.version)).toEqual([1]);
    expect(await getTemplate(db.pool, "acme", created.id)).toEqual(created);
    expect(await getTemplateByName(db.pool, "acme", "welcome")).toEqual(created);
    expect(await getTemplate(db.pool, "other", created.id)).toBeUndefined();
    expect(await getTemplateByName(db.pool, "other", "welcome")).toBeUndefined();
    expect(await getTemplate(db.pool, "acme", "not-a-uuid")).toBeUndefined();
  });

  it("keeps names unique per account only", async () => {
    await createTemplate(db.pool, { account: "acme", name: "receipt", ...base });
    expect(await codeOf(createTemplate(db.pool, { account: "acme", name: "receipt", ...base }))).toBe(
      "conflict",
    );
    expect(await codeOf(createTemplate(db.pool, { account: "beta", name: "receipt", ...base }))).toBe("ok");
    expect(await codeOf(createTemplate(db.pool, { account: "acme", name: "bad name", ...base }))).toBe(
      "validation_error",
    );
    expect(
      await codeOf(
        createTemplate(db.pool, { account: "acme", name: "broken", subject: "{{#if}}", text: "x" }),
      ),
    ).toBe("validation_error");
  });

  it("makes every content change a new immutable version, and metadata changes none", async () => {
    const t = await createTemplate(db.pool, {
      account: "acme",
      name: "invoice",
      ...base,
      variables: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
    });
    const target = { account: "acme", id: t.id, actor: "api" as const };
    const v2 = await updateTemplate(db.pool, target, { subject: "Your invoice, {{name}}" });
    expect(v2.version).toBe(2);
    expect(v2.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(v2.html).toBe(base.html);
    const renamed = await updateTemplate(db.pool, target, { name: "invoice-v2", description: "Monthly" });
    expect(renamed).toMatchObject({ version: 2, name: "invoice-v2", description: "Monthly" });
    // The same schema with its keys in another order is no change.
    const same = await updateTemplate(db.pool, target, {
      subject: "Your invoice, {{name}}",
      variables: { properties: { name: { type: "string" } }, required: ["name"], type: "object" },
    });
    expect(same).toEqual(renamed);
    const v3 = await updateTemplate(db.pool, target, { html: null, variables: null });
    expect(v3).toMatchObject({ version: 3, html: null, variables: null, text: base.text });
    expect(await codeOf(updateTemplate(db.pool, target, { text: null }))).toBe("validation_error");
    expect(await codeOf(updateTemplate(db.pool, target, { text: "{{#each}}{{/each}}" }))).toBe(
      "validation_error",
    );

    const v1 = await getTemplateVersion(db.pool, "acme", t.id, 1);
    expect(v1).toMatchObject({ version: 1, subject: base.subject, html: base.html });
    expect(await getTemplateVersion(db.pool, "other", t.id, 1)).toBeUndefined();
    await expect(
      db.pool.query(`update template_versions set subject = 'x' where template_id = $1`, [t.id]),
    ).rejects.toThrow(/immutable/);
  });

  it("refuses to change another account's template or the operator's, unless the operator asks", async () => {
    const t = await createTemplate(db.pool, { account: "acme", name: "ops", ...base, managedBy: "operator" });
    const asApi = { account: "acme", id: t.id, actor: "api" as const };
    expect(await codeOf(updateTemplate(db.pool, asApi, { subject: "x" }))).toBe("managed_by_operator");
    expect(await codeOf(deleteTemplate(db.pool, asApi))).toBe("managed_by_operator");
    const elsewhere = { account: "other", id: t.id, actor: "operator" as const };
    expect(await codeOf(updateTemplate(db.pool, elsewhere, { subject: "x" }))).toBe("not_found");
    expect(await codeOf(deleteTemplate(db.pool, elsewhere))).toBe("not_found");
    const asOperator = { account: "acme", id: t.id, actor: "operator" as const };
    expect((await updateTemplate(db.pool, asOperator, { subject: "x" })).version).toBe(2);
    await deleteTemplate(db.pool, asOperator);
    expect(await getTemplate(db.pool, "acme", t.id)).toBeUndefined();
    const { rows } = await db.pool.query(`select 1 from template_versions where template_id = $1`, [t.id]);
    expect(rows).toHaveLength(0);
  });

  it("pages newest first with a cursor that survives deletion", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createTemplate(db.pool, { account: "paged", name: `t${i}`, ...base })).id);
    }
    await createTemplate(db.pool, { account: "unrelated", name: "t9", ...base });
    const first = await listTemplates(db.pool, "paged", { limit: 2 });
    expect(first.data.map((t) => t.name)).toEqual(["t4", "t3"]);
    expect(first.hasMore).toBe(true);
    await deleteTemplate(db.pool, { account: "paged", id: ids[3] as string, actor: "api" });
    const second = await listTemplates(db.pool, "paged", { limit: 2, after: first.data.at(-1)?.id });
    expect(second.data.map((t) => t.name)).toEqual(["t2", "t1"]);
    expect(second.hasMore).toBe(true);
    const third = await listTemplates(db.pool, "paged", { limit: 2, after: second.data.at(-1)?.id });
    expect(third).toMatchObject({ data: [{ name: "t0" }], hasMore: false });
    const all = await listTemplates(db.pool, "paged", { limit: 100 });
    expect(all).toMatchObject({ hasMore: false });
    expect(all.data).toHaveLength(4);
    expect(await codeOf(listTemplates(db.pool, "paged", { limit: 0 }))).toBe("validation_error");
    expect(await codeOf(listTemplates(db.pool, "paged", { limit: 101 }))).toBe("validation_error");
    expect(await codeOf(listTemplates(db.pool, "paged", { after: "t1" }))).toBe("validation_error");
  });

  it("renders for a send by id, name and version, and only in the template's account", async () => {
    const t = await createTemplate(db.pool, {
      account: "send",
      name: "code",
      subject: "Code {{code}}",
      text: "v1 {{code}}",
    });
    await updateTemplate(db.pool, { account: "send", id: t.id, actor: "api" }, { text: "v2 {{code}}" });
    const variables = { code: "42" };
    expect(await renderTemplateForSend(db.pool, "send", { id: t.id, variables })).toEqual({
      subject: "Code 42",
      text: "v2 42",
      templateId: t.id,
      version: 2,
    });
    expect(
      await renderTemplateForSend(db.pool, "send", { name: "code", version: 1, variables }),
    ).toMatchObject({
      text: "v1 42",
      version: 1,
    });
    expect(await codeOf(renderTemplateForSend(db.pool, "other", { id: t.id, variables }))).toBe("not_found");
    expect(await codeOf(renderTemplateForSend(db.pool, "other", { name: "code", variables }))).toBe(
      "not_found",
    );
    expect(await codeOf(renderTemplateForSend(db.pool, "send", { id: t.id, version: 3, variables }))).toBe(
      "not_found",
    );
    expect(await codeOf(renderTemplateForSend(db.pool, "send", { id: "nope", variables }))).toBe("not_found");
    expect(await codeOf(renderTemplateForSend(db.pool, "send", { id: t.id, name: "code", variables }))).toBe(
      "validation_error",
    );
    expect(await codeOf(renderTemplateForSend(db.pool, "send", { id: t.id, variables: {} }))).toBe(
      "template_render_error",
    );
  });
});
