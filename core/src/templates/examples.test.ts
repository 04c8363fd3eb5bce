import { describe, expect, it } from "vitest";
import { MailroomError } from "../errors/index.ts";
import { exampleVariables } from "./examples.ts";
import { checkTemplateContent, renderContent } from "./render.ts";
import type { TemplateContent } from "./types.ts";

function content(parts: Partial<TemplateContent>): TemplateContent {
  return { subject: "s", html: null, text: "t", variables: null, ...parts };
}

/** The examples must render: that is the point of them (the console's preview opens with them). */
function rendersWithItsExample(c: TemplateContent) {
  const example = exampleVariables(c);
  return { example, rendered: renderContent(c, example) };
}

describe("exampleVariables", () => {
  it("fills the variables a template without a schema reads, so its preview renders", () => {
    const c = content({ subject: "Welcome, {{name}}", html: "<p>{{user.first}} {{user.last}}</p>" });
    // Before issue 33 the console previewed with {}: a missing-variable 422.
    expect(() => renderContent(c, {})).toThrow(/Missing template variables/);
    const { example, rendered } = rendersWithItsExample(c);
    expect(example).toEqual({ name: "name", user: { first: "first", last: "last" } });
    expect(rendered.subject).toBe("Welcome, name");
  });

  it("uses the schema's first declared example as it is", () => {
    const c = content({
      subject: "Order {{order.id}} for {{name}}",
      variables: {
        type: "object",
        required: ["name", "order"],
        properties: {
          name: { type: "string" },
          order: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        },
        examples: [
          { name: "Ann", order: { id: 42 } },
          { name: "Bob", order: { id: 7 } },
        ],
      },
    });
    const { example, rendered } = rendersWithItsExample(c);
    expect(example).toEqual({ name: "Ann", order: { id: 42 } });
    expect(rendered.subject).toBe("Order 42 for Ann");
  });

  it("makes a value of each property's type and format when nothing is declared", () => {
    const c = content({
      subject: "{{count}} {{email}}",
      text: "{{#each items}}{{this}}{{/each}} {{#if vip}}VIP{{/if}} {{plan}} {{when}} {{site}} {{ratio}}",
      variables: {
        type: "object",
        additionalProperties: false,
        required: ["count", "email", "items", "vip", "plan", "when", "site", "ratio", "nick"],
        properties: {
          count: { type: "integer", minimum: 3 },
          email: { type: "string", format: "email" },
          items: { type: "array", items: { type: "string" }, minItems: 2 },
          vip: { type: "boolean" },
          plan: { enum: ["pro", "free"] },
          when: { type: "string", format: "date-time" },
          site: { type: "string", format: "uri" },
          ratio: { type: ["number", "null"] },
          nick: { type: "string", default: "annie" },
        },
      },
    });
    const { example, rendered } = rendersWithItsExample(c);
    expect(example).toEqual({
      count: 3,
      email: "ann@example.com",
      items: ["items", "items"],
      vip: true,
      plan: "pro",
      when: "2026-01-01T09:00:00Z",
      site: "https://example.com/",
      ratio: 1,
      nick: "annie",
    });
    expect(rendered.text).toBe("itemsitems VIP pro 2026-01-01T09:00:00Z https://example.com/ 1");
  });

  it("keeps to the bounds of numbers and string lengths, and names required properties the schema leaves bare", () => {
    const c = content({
      subject: "{{code}} {{short}} {{low}} {{above}} {{extra}}",
      variables: {
        type: "object",
        required: ["code", "short", "low", "above", "extra"],
        properties: {
          code: { type: "string", minLength: 8 },
          short: { type: "string", maxLength: 2 },
          low: { type: "number", maximum: -5 },
          above: { type: "integer", exclusiveMinimum: 10 },
        },
      },
    });
    const { example, rendered } = rendersWithItsExample(c);
    expect(example).toEqual({ code: "codexxxx", short: "sh", low: -5, above: 11, extra: "extra" });
    expect(rendered.subject).toBe("codexxxx sh -5 11 extra");
  });

  it("keeps a property's own examples and adds variables the parts read that the schema leaves out", () => {
    const c = content({
      subject: "{{greeting}}, {{name}}",
      variables: { type: "object", properties: { name: { type: "string", examples: ["Zoë"] } } },
    });
    expect(rendersWithItsExample(c).example).toEqual({ name: "Zoë", greeting: "greeting" });
  });
});

describe("declared examples are checked when a template is saved", () => {
  const schema = {
    type: "object",
    required: ["name"],
    properties: { name: { type: "string" }, age: { type: "integer" } },
  };

  function failure(c: TemplateContent): string {
    try {
      checkTemplateContent(c);
    } catch (error) {
      if (error instanceof MailroomError && error.code === "validation_error") return error.message;
      throw error;
    }
    throw new Error("expected a validation_error");
  }

  it("accepts examples the schema accepts", () => {
    expect(() =>
      checkTemplateContent(content({ variables: { ...schema, examples: [{ name: "Ann", age: 3 }] } })),
    ).not.toThrow();
  });

  it("refuses an example the schema refuses, naming it and the problem", () => {
    expect(failure(content({ variables: { ...schema, examples: [{ name: "Ann" }, { age: "x" }] } }))).toBe(
      "variables.examples[1]: does not match the schema: name is missing; age must be integer",
    );
  });

  it("refuses examples that are not a list of objects", () => {
    expect(failure(content({ variables: { ...schema, examples: { name: "Ann" } } }))).toBe(
      "variables: not a usable JSON Schema: schema is invalid: data/examples must be array",
    );
    expect(failure(content({ variables: { ...schema, examples: ["Ann"] } }))).toBe(
      "variables.examples[0]: must be an object",
    );
  });
});
