import {
  idParamsSchema,
  pageLimitSchema,
  pageSchema,
  timestamp,
  versionNumberSchema,
} from "../../../schemas.ts";

/** JSON schemas of the template routes: they validate, serialise and document (OpenAPI) at once. */

const nullableString = (maxLength: number, description: string) =>
  ({ type: ["string", "null"], maxLength, description }) as const;

const variablesSchema = {
  type: ["object", "null"],
  additionalProperties: true,
  description:
    "JSON Schema (draft-07) the variables of a render must satisfy; null accepts any object. Its `examples` (objects the schema accepts, checked when saved) are what a preview starts from",
} as const;

const exampleVariablesSchema = {
  type: "object",
  additionalProperties: true,
  description:
    "Variables to preview this version with: the first of its schema's `examples`, else a value for each property the schema names and each variable the parts always read",
} as const;

const name = {
  type: "string",
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$",
  description: "Unique in the account: 1 to 128 letters, digits, `.`, `_` or `-`",
} as const;

const contentProperties = {
  name,
  description: nullableString(1000, "Free text for people; not rendered"),
  subject: {
    type: "string",
    maxLength: 2000,
    description: "Handlebars; values inserted raw, and the rendered subject may not contain CR or LF",
  },
  html: nullableString(512 * 1024, "Handlebars; values HTML-escaped; `{{{…}}}` is refused"),
  text: nullableString(512 * 1024, "Handlebars; values inserted raw"),
  variables: variablesSchema,
} as const;

export const createTemplateBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "subject"],
  properties: contentProperties,
} as const;

export const updateTemplateBodySchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  description: "Changes to subject, html, text or variables make a new version; name and description do not",
  properties: contentProperties,
} as const;

export const renderTemplateBodySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    variables: { type: "object", additionalProperties: true, default: {} },
    version: { ...versionNumberSchema, description: "A stored version; the current one when absent" },
  },
} as const;

export const templateParamsSchema = idParamsSchema("The template id");

export const versionParamsSchema = {
  type: "object",
  required: ["id", "version"],
  properties: {
    id: { type: "string", maxLength: 64 },
    version: { ...versionNumberSchema, description: "A version number" },
  },
} as const;

export const listQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: pageLimitSchema(20),
    after: { type: "string", maxLength: 64, description: "The id of the last template of the previous page" },
  },
} as const;

const summaryRequired = [
  "id",
  "name",
  "description",
  "managedBy",
  "version",
  "createdAt",
  "updatedAt",
] as const;
const summaryProperties = {
  id: { type: "string" },
  name: { type: "string" },
  description: { type: ["string", "null"] },
  managedBy: { type: "string", enum: ["api", "operator"] },
  version: { type: "integer", description: "The current version" },
  createdAt: timestamp,
  updatedAt: timestamp,
} as const;

export const templateSummarySchema = {
  type: "object",
  additionalProperties: false,
  required: summaryRequired,
  properties: summaryProperties,
} as const;

export const templateSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    ...summaryRequired,
    "managedByResource",
    "subject",
    "html",
    "text",
    "variables",
    "exampleVariables",
    "versions",
  ],
  properties: {
    ...summaryProperties,
    managedByResource: {
      type: ["string", "null"],
      description:
        "For a template the operator manages: the resource that declares it, `Template/<name>` in the account's namespace",
    },
    subject: { type: "string" },
    html: { type: ["string", "null"] },
    text: { type: ["string", "null"] },
    variables: variablesSchema,
    exampleVariables: exampleVariablesSchema,
    versions: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["version", "createdAt"],
        properties: { version: { type: "integer" }, createdAt: timestamp },
      },
    },
  },
} as const;

export const templateVersionSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "templateId",
    "version",
    "subject",
    "html",
    "text",
    "variables",
    "exampleVariables",
    "createdAt",
  ],
  properties: {
    templateId: { type: "string" },
    version: { type: "integer" },
    subject: { type: "string" },
    html: { type: ["string", "null"] },
    text: { type: ["string", "null"] },
    variables: variablesSchema,
    exampleVariables: exampleVariablesSchema,
    createdAt: timestamp,
  },
} as const;

export const templateListSchema = pageSchema(templateSummarySchema, "id");

export const renderedTemplateSchema = {
  type: "object",
  additionalProperties: false,
  required: ["subject", "templateId", "version"],
  properties: {
    subject: { type: "string" },
    html: { type: "string" },
    text: { type: "string" },
    templateId: { type: "string" },
    version: { type: "integer" },
  },
} as const;
