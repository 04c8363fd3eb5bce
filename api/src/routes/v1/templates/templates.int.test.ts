import { createKey, revokeKey, type Scope } from "@mailroom/core/keys";
import { createTemplate } from "@mailroom/core/templates";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, startTestApp, keyFor as testKey } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";

let db: TestDatabase;
let app: FastifyInstance;
let acmeKey: string;

const XSS = `<script>alert(document.cookie)</script>`;

const keyFor = (account: string, scopes: Scope[]) => testKey(db, account, scopes);

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db);
  acmeKey = await keyFor("acme", ["templates"]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

function call(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, body?: unknown, key = acmeKey) {
  return injectAs(app, key, method, url, body);
}

const welcome = {
  name: "welcome",
  description: "First mail",
  subject: "Welcome, {{name}}",
  html: "<h1>Hi {{name}}</h1>",
  text: "Hi {{name}}",
  variables: { type: "object", required: ["name"], properties: { name: { type: "string", maxLength: 200 } } },
};

describe("/v1/templates", () => {
  it("creates, reads, changes (new version), previews and deletes a template", async () => {
    const created = await call("POST", "/v1/templates", welcome);
    expect(created.statusCode).toBe(201);
    const t = created.json();
    expect(t).toMatchObject({ ...welcome, managedBy: "api", version: 1, versions: [{ version: 1 }] });
    expect(Object.keys(t)).not.toContain("account");

    const read = await call("GET", `/v1/templates/${t.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(t);

    const patched = await call("PATCH", `/v1/templates/${t.id}`, { subject: "Hello again, {{name}}" });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      version: 2,
      subject: "Hello again, {{name}}",
      html: welcome.html,
    });
    expect(patched.json().versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);

    const v1 = await call("GET", `/v1/templates/${t.id}/versions/1`);
    expect(v1.statusCode).toBe(200);
    expect(v1.json()).toMatchObject({ templateId: t.id, version: 1, subject: welcome.subject });
    expect((await call("GET", `/v1/templates/${t.id}/versions/9`)).statusCode).toBe(404);

    const preview = await call("POST", `/v1/templates/${t.id}/render`, { variables: { name: "Ann" } });
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toEqual({
      subject: "Hello again, Ann",
      html: "<h1>Hi Ann</h1>",
      text: "Hi Ann",
      templateId: t.id,
      version: 2,
    });
    const old = await call("POST", `/v1/templates/${t.id}/render`, {
      variables: { name: "Ann" },
      version: 1,
    });
    expect(old.json()).toMatchObject({ subject: "Welcome, Ann", version: 1 });

    expect((await call("DELETE", `/v1/templates/${t.id}`)).statusCode).toBe(204);
    expect((await call("GET", `/v1/templates/${t.id}`)).json()).toMatchObject({ error: "not_found" });
  });

  it("keeps an XSS payload inert in html and raw in text", async () => {
    const t = (await call("POST", "/v1/templates", { ...welcome, name: "xss" })).json();
    const res = await call("POST", `/v1/templates/${t.id}/render`, { variables: { name: XSS } });
    expect(res.statusCode).toBe(200);
    const out = res.json();
    expect(out.html).toBe("<h1>Hi &lt;script&gt;alert(document.cookie)&lt;/script&gt;</h1>");
    expect(out.text).toBe(`Hi ${XSS}`);
    const raw = await call("POST", "/v1/templates", { name: "raw", subject: "s", html: "<p>{{{name}}}</p>" });
    expect(raw.statusCode).toBe(400);
    expect(raw.json().message).toContain("html line 1, column 4");
  });

  it("answers 400 naming part, line and column of a syntax error", async () => {
    const res = await call("POST", "/v1/templates", {
      name: "broken",
      subject: "ok",
      text: "line 1\n{{#if x}}\nno end",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: "validation_error",
      message: "text line 3, column 7: syntax error: the template ends inside an expression or block",
    });
    const patch = await call("POST", "/v1/templates", { name: "fine", subject: "ok", text: "x" });
    const bad = await call("PATCH", `/v1/templates/${patch.json().id}`, { subject: "Hi {{name" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^subject line 1, column \d+: syntax error/);
  });

  it("refuses at creation the names Handlebars reserves, instead of failing every render", async () => {
    for (const text of ["{{helperMissing 'a'}}", "{{#blockHelperMissing x}}y{{/blockHelperMissing}}"]) {
      const res = await call("POST", "/v1/templates", { name: "reserved", subject: "s", text });
      expect(res.statusCode, text).toBe(400);
      expect(res.json()).toEqual({
        error: "validation_error",
        message: expect.stringMatching(/^text line 1, column \d+: \w+ is reserved by Handlebars/),
      });
    }
  });

  it("answers 422 naming missing and schema-invalid variables", async () => {
    const t = (await call("POST", "/v1/templates", { ...welcome, name: "strict", variables: null })).json();
    const missing = await call("POST", `/v1/templates/${t.id}/render`, { variables: {} });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({
      error: "template_render_error",
      message:
        "Missing template variables: name (subject line 1, column 12), name (html line 1, column 10), " +
        "name (text line 1, column 6)",
    });
    const schema = (await call("POST", "/v1/templates", { ...welcome, name: "schema" })).json();
    const invalid = await call("POST", `/v1/templates/${schema.id}/render`, { variables: { name: 7 } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().message).toContain("name must be string");
  });

  it("serves example variables that render, from the declared examples or the parts (issue 33)", async () => {
    // No schema: the preview used to start from {} and answer 422 for any template with a variable.
    const bare = (await call("POST", "/v1/templates", { ...welcome, name: "bare", variables: null })).json();
    expect(bare.exampleVariables).toEqual({ name: "name" });
    const render = (id: string, variables: unknown, version?: number) =>
      call("POST", `/v1/templates/${id}/render`, { variables, ...(version ? { version } : {}) });
    expect((await render(bare.id, bare.exampleVariables)).json()).toMatchObject({ subject: "Welcome, name" });

    const declared = { ...welcome.variables, examples: [{ name: "Ann" }] };
    const patched = (await call("PATCH", `/v1/templates/${bare.id}`, { variables: declared })).json();
    expect(patched).toMatchObject({ version: 2, exampleVariables: { name: "Ann" } });
    const v1 = (await call("GET", `/v1/templates/${bare.id}/versions/1`)).json();
    expect(v1.exampleVariables).toEqual({ name: "name" });
    expect((await render(bare.id, patched.exampleVariables)).json()).toMatchObject({ text: "Hi Ann" });

    const wrong = await call("PATCH", `/v1/templates/${bare.id}`, {
      variables: { ...declared, examples: [{ name: 7 }] },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      error: "validation_error",
      message: "variables.examples[0]: does not match the schema: name must be string",
    });
  });

  it("pages with after and limit", async () => {
    const key = await keyFor("pages", ["templates"]);
    for (const name of ["a", "b", "c"]) {
      expect((await call("POST", "/v1/templates", { name, subject: name, text: name }, key)).statusCode).toBe(
        201,
      );
    }
    const first = await call("GET", "/v1/templates?limit=2", undefined, key);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ data: [{ name: "c" }, { name: "b" }], hasMore: true });
    expect(Object.keys(first.json().data[0])).not.toContain("html");
    const after = first.json().data[1].id;
    const second = await call("GET", `/v1/templates?limit=2&after=${after}`, undefined, key);
    expect(second.json()).toMatchObject({ data: [{ name: "a" }], hasMore: false });
    expect((await call("GET", "/v1/templates?limit=101", undefined, key)).statusCode).toBe(400);
    const zero = await call("GET", "/v1/templates?limit=0", undefined, key);
    expect(zero.statusCode).toBe(400);
    // The rule in words, not the pattern that checks it.
    expect(zero.json()).toEqual({
      error: "validation_error",
      message: "limit: must be an integer from 1 to 100 (default 20)",
    });
    expect((await call("GET", "/v1/templates?cursor=x", undefined, key)).statusCode).toBe(400);
  });

  it("refuses unknown fields and a duplicate name", async () => {
    const extra = await call("POST", "/v1/templates", { ...welcome, name: "extra", engine: "ejs" });
    expect(extra.json()).toEqual({ error: "validation_error", message: "engine: is not a known field" });
    await call("POST", "/v1/templates", { ...welcome, name: "dup" });
    const dup = await call("POST", "/v1/templates", { ...welcome, name: "dup" });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe("conflict");
    expect((await call("PATCH", "/v1/templates/00000000-0000-7000-8000-000000000000", {})).statusCode).toBe(
      400,
    );
  });

  it("hides another account's templates (404) and refuses operator-managed changes (409)", async () => {
    const theirs = await createTemplate(db.pool, {
      account: "other",
      name: "theirs",
      subject: "s",
      text: "t",
    });
    for (const [method, url, body] of [
      ["GET", `/v1/templates/${theirs.id}`, undefined],
      ["PATCH", `/v1/templates/${theirs.id}`, { subject: "mine now" }],
      ["DELETE", `/v1/templates/${theirs.id}`, undefined],
      ["POST", `/v1/templates/${theirs.id}/render`, { variables: {} }],
      ["GET", `/v1/templates/${theirs.id}/versions/1`, undefined],
      ["GET", "/v1/templates/not-a-uuid", undefined],
    ] as const) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe("not_found");
    }
    const listed = await call("GET", "/v1/templates?limit=100");
    expect(listed.json().data.map((t: { id: string }) => t.id)).not.toContain(theirs.id);

    const ops = await createTemplate(db.pool, {
      account: "acme",
      name: "from-crd",
      subject: "s",
      text: "t",
      managedBy: "operator",
    });
    const patch = await call("PATCH", `/v1/templates/${ops.id}`, { subject: "changed" });
    expect(patch.statusCode).toBe(409);
    expect(patch.json().error).toBe("managed_by_operator");
    expect((await call("DELETE", `/v1/templates/${ops.id}`)).json().error).toBe("managed_by_operator");
    expect((await call("GET", `/v1/templates/${ops.id}`)).json()).toMatchObject({
      managedBy: "operator",
      managedByResource: null,
      subject: "s",
    });
    // The resource that declares it, as the operator records it, so the console can name it.
    await db.pool.query(
      `insert into operator_bindings (kind, namespace, name, uid, target_id) values ('Template', 'acme', 'welcome-crd', 'u1', $1)`,
      [ops.id],
    );
    expect((await call("GET", `/v1/templates/${ops.id}`)).json().managedByResource).toBe(
      "Template/welcome-crd",
    );
  });

  it("needs the templates scope and a live key", async () => {
    const sendOnly = await keyFor("acme", ["send"]);
    const denied = await call("GET", "/v1/templates", undefined, sendOnly);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe("insufficient_scope");
    const created = await createKey(db.pool, { account: "acme", scopes: ["templates"], expires: "never" });
    await revokeKey(db.pool, created.key.keyId);
    const revoked = await call("POST", "/v1/templates", { ...welcome, name: "revoked" }, created.fullKey);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error).toBe("api_key_revoked");
    const anonymous = await app.inject({ method: "GET", url: "/v1/templates" });
    expect(anonymous.json().error).toBe("missing_api_key");
  });
});
