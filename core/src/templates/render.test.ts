import { describe, expect, it } from "vitest";
import { MailroomError } from "../errors/index.ts";
import { checkTemplateContent, renderContent } from "./render.ts";
import type { TemplateContent } from "./types.ts";

const XSS = `<script>alert("x")</script><img src=x onerror='alert(1)'>`;

function content(parts: Partial<TemplateContent>): TemplateContent {
  return { subject: "s", html: null, text: null, variables: null, ...parts };
}

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof MailroomError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a MailroomError");
}

describe("renderContent", () => {
  it("escapes variables in html and leaves them raw in subject and text", () => {
    const out = renderContent(
      content({ subject: "Hi {{name}}", html: "<p>Hi {{name}}</p>", text: "Hi {{name}}" }),
      { name: XSS },
    );
    expect(out.subject).toBe(`Hi ${XSS}`);
    expect(out.text).toBe(`Hi ${XSS}`);
    expect(out.html).toBe(
      "<p>Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src&#x3D;x onerror&#x3D;&#x27;alert(1)&#x27;&gt;</p>",
    );
    expect(out.html).not.toContain("<script");
  });

  it("escapes helper results in html too", () => {
    const out = renderContent(content({ html: "{{uppercase name}}|{{default missing name}}" }), {
      name: XSS,
    });
    expect(out.html).not.toMatch(/<script|<SCRIPT|<img|<IMG/);
    expect(out.html).toContain("&lt;SCRIPT&gt;");
  });

  it("omits a body part the template does not have", () => {
    expect(renderContent(content({ text: "plain" }), {})).toEqual({ subject: "s", text: "plain" });
  });

  it("names every missing top-level variable at once, with part, line and column", () => {
    const err = failure(() =>
      renderContent(
        content({ subject: "{{first}}", html: "<p>\n  {{user.name}}</p>", text: "{{first}}" }),
        {},
      ),
    );
    expect(err.code).toBe("template_render_error");
    expect(err.message).toContain("first (subject line 1, column 3)");
    expect(err.message).toContain("user.name (html line 2, column 5)");
    expect(err.message).toContain("first (text line 1, column 3)");
  });

  it("names a variable missing inside a block by its full path", () => {
    const err = failure(() =>
      renderContent(content({ text: "{{#each items}}\n- {{sku.code}}{{/each}}" }), { items: [{ sku: {} }] }),
    );
    expect(err).toEqual({
      code: "template_render_error",
      message: "text line 2, column 5: missing variable sku.code",
    });
  });

  it("lets a block skip an optional variable without failing", () => {
    const template = content({ text: "{{#if coupon}}Use {{coupon.code}}{{else}}No coupon{{/if}}" });
    expect(renderContent(template, {}).text).toBe("No coupon");
    expect(renderContent(template, { coupon: { code: "X1" } }).text).toBe("Use X1");
  });

  it("validates variables against the JSON Schema and names each bad one", () => {
    const template = content({
      text: "{{name}} {{total}}",
      variables: {
        type: "object",
        required: ["name", "total", "email"],
        properties: { name: { type: "string" }, total: { type: "number" }, email: { format: "email" } },
      },
    });
    const err = failure(() => renderContent(template, { name: 3, total: "ten" }));
    expect(err.code).toBe("template_render_error");
    expect(err.message).toContain("email is missing");
    expect(err.message).toContain("name must be string");
    expect(err.message).toContain("total must be number");
    expect(renderContent(template, { name: "Ann", total: 10, email: "a@b.test" }).text).toBe("Ann 10");
  });

  it("refuses a rendered subject that would break the header", () => {
    const err = failure(() =>
      renderContent(content({ subject: "Hi {{name}}", text: "x" }), { name: "a\r\nBcc: x@y.test" }),
    );
    expect(err.code).toBe("template_render_error");
    expect(err.message).toMatch(/^subject: /);
  });

  it("refuses a rendered subject longer than a header line can carry (997 when unfoldable)", () => {
    const tpl = content({ subject: "{{s}}", text: "x" });
    expect(renderContent(tpl, { s: "a".repeat(997) }).subject).toHaveLength(997);
    const err = failure(() => renderContent(tpl, { s: "a".repeat(998) }));
    expect(err).toMatchObject({
      code: "template_render_error",
      message: expect.stringMatching(/^subject: /),
    });
  });

  it("keeps prototype access inert", () => {
    // JSON.parse makes `__proto__` an own property, as a hostile request body would.
    const variables = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "obj": {"a": 1}, "list": [1]}',
    ) as Record<string, unknown>;
    const inBlock = content({
      text: [
        "{{#with obj}}",
        "[{{constructor}}]",
        "[{{#with __proto__}}{{toString}}{{/with}}]",
        "[{{#with constructor}}{{name}}{{/with}}]",
        "[{{#each this}}{{@key}};{{/each}}]",
        // Inherited methods: Handlebars resolves these only when prototype access is allowed.
        "[{{toString}}][{{valueOf}}]",
        "{{/with}}",
        "{{#with list}}[{{#with map}}{{name}}{{/with}}]{{/with}}",
        "[{{__proto__.polluted}}]",
      ].join(""),
    });
    expect(renderContent(inBlock, variables).text).toBe("[][][][a;][][][][yes]");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Reaching through a prototype fails like any missing variable.
    const deep = failure(() =>
      renderContent(content({ text: "{{#with obj}}{{constructor.constructor}}{{/with}}" }), variables),
    );
    expect(deep).toEqual({
      code: "template_render_error",
      message: "text line 1, column 16: missing variable constructor.constructor",
    });
    // At the top level an inherited name is simply not a variable the caller gave.
    const top = failure(() =>
      renderContent(content({ text: "{{constructor}} {{this.constructor.name}}" }), {}),
    );
    expect(top.message).toBe(
      "Missing template variables: constructor (text line 1, column 3), constructor.name (text line 1, column 19)",
    );
  });

  it("offers eq, uppercase, lowercase, default and formatDate", () => {
    const out = renderContent(
      content({
        text: [
          '{{#if (eq status "paid")}}paid{{else}}due{{/if}}',
          "{{uppercase name}} {{lowercase name}}",
          '{{default nickname "friend"}}',
          '{{formatDate at}}|{{formatDate at "iso"}}|{{formatDate at "long" time="short" timeZone="Europe/Paris"}}',
        ].join("\n"),
      }),
      { status: "paid", name: "Ann", at: "2030-01-31T23:30:00Z" },
    );
    expect(out.text).toBe(
      "paid\nANN ann\nfriend\nJan 31, 2030|2030-01-31T23:30:00.000Z|February 1, 2030 at 12:30 AM",
    );
    const err = failure(() => renderContent(content({ text: "{{formatDate at}}" }), { at: "soon" }));
    expect(err).toEqual({ code: "template_render_error", message: 'text: formatDate: "soon" is not a date' });
  });
});

describe("checkTemplateContent", () => {
  it.each([
    [
      { html: "<p>\n  Hello {{name</p>" },
      "html line 2, column 11: syntax error: unexpected text inside {{…}}",
    ],
    [{ text: "{{#if a}}\nx" }, "syntax error: the template ends inside an expression or block"],
    [{ text: "{{/if}}" }, "text line 1, column 1: syntax error: unexpected OPEN_ENDBLOCK"],
    [{ subject: "{{#if a}}x{{/each}}", text: "x" }, "subject line 1, column 4: if doesn't match each"],
    [{ text: "ok\n{{!-- open" }, "text line 2, column 1: syntax error: unrecognized text"],
    [
      { text: "{{shout name}}" },
      "text line 1, column 1: unknown helper shout (helpers: if, unless, each, with, eq, uppercase, lowercase, default, formatDate)",
    ],
    [{ text: "{{lookup this 'constructor'}}" }, "text line 1, column 3: lookup is reserved by Handlebars"],
    [{ text: "{{log 'x'}}" }, "log is reserved by Handlebars"],
    // Handlebars' own fallbacks: they compiled, then failed every render with an internal message.
    [{ text: "{{helperMissing 'a'}}" }, "text line 1, column 3: helperMissing is reserved by Handlebars"],
    [{ text: "{{helperMissing}}" }, "helperMissing is reserved by Handlebars"],
    [
      { html: "{{#blockHelperMissing x}}y{{/blockHelperMissing}}" },
      "html line 1, column 4: blockHelperMissing",
    ],
    [{ text: "{{#helperMissing}}y{{/helperMissing}}" }, "helperMissing is reserved by Handlebars"],
    [{ text: "{{uppercase (lookup a 'b')}}" }, "lookup is reserved by Handlebars"],
    [{ subject: "{{#if (log 1)}}x{{/if}}", text: "x" }, "subject line 1, column 8: log is reserved"],
    [{ text: "{{if a}}" }, "text line 1, column 1: if is a block helper: write {{#if value}}…{{/if}}"],
    [{ text: "{{uppercase (each a)}}" }, "each is a block helper"],
    [{ text: "{{with}}" }, "with is a block helper"],
    [{ text: "a {{> footer}}" }, "text line 1, column 3: partials are not supported"],
    [{ text: '{{#*inline "p"}}x{{/inline}}' }, "decorators are not supported"],
    [
      { html: "<p>{{{raw}}}</p>" },
      "html line 1, column 4: {{{…}}} and {{&…}} would insert a value unescaped",
    ],
    [{ html: "{{& raw}}" }, "html line 1, column 1"],
    [{ text: "{{#each}}x{{/each}}" }, "text line 1, column 1: #each takes exactly one value"],
    [{ html: null, text: null }, "html: give html, text or both"],
    [{ text: "x", variables: { type: "object", requierd: ["a"] } }, "variables: not a usable JSON Schema"],
  ])("refuses %j with a located validation_error", (parts, message) => {
    const err = failure(() => checkTemplateContent(content({ text: "x", ...parts })));
    expect(err.code).toBe("validation_error");
    expect(err.message).toContain(message);
  });

  it("accepts a raw triple-stash outside html and the allowed constructs", () => {
    expect(() =>
      checkTemplateContent(
        content({
          text: "{{{raw}}} {{#each items as |item i|}}{{i}}{{item}}{{@index}}{{/each}} {{@root.a}}",
          html: "{{#with user}}{{name}}{{/with}}{{#unless x}}y{{/unless}}{{this.log}}{{user.lookup}}{{@root.log}}",
        }),
      ),
    ).not.toThrow();
  });
});
