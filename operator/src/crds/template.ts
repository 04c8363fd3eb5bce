import {
  ageColumn,
  type CrdDefinition,
  conditionsSchema,
  nameRoomFor,
  observedGenerationSchema,
  readyColumn,
  readyReasonColumn,
  reclaimPolicySchema,
} from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";

/** Generous per-body bound that still keeps one object far below etcd's 1.5 MiB limit. */
const MAX_BODY_LENGTH = 512 * 1024;

const spec = {
  type: "object",
  required: ["subject"],
  // A template with neither body could never render a message.
  anyOf: [{ required: ["html"] }, { required: ["text"] }],
  properties: {
    name: {
      type: "string",
      description: "Name sends refer to. Defaults to metadata.name.",
      minLength: 1,
      maxLength: 128,
      pattern: "^[a-zA-Z0-9][a-zA-Z0-9._-]*$",
    },
    subject: { type: "string", description: "Handlebars, rendered raw.", minLength: 1, maxLength: 998 },
    html: { type: "string", description: "Handlebars, HTML-escaped.", maxLength: MAX_BODY_LENGTH },
    text: { type: "string", description: "Handlebars, rendered raw.", maxLength: MAX_BODY_LENGTH },
    variablesSchema: {
      type: "object",
      description:
        "A JSON Schema the variables of a send must satisfy. Its `examples` (objects it accepts) are what the console's preview starts from.",
      "x-kubernetes-preserve-unknown-fields": true,
    },
    reclaimPolicy: reclaimPolicySchema,
  },
} as const satisfies SchemaProps;

const status = {
  type: "object",
  properties: {
    version: { type: "integer", description: "Template version now served to sends.", minimum: 1 },
    observedGeneration: observedGenerationSchema,
    conditions: conditionsSchema,
  },
} as const satisfies SchemaProps;

/** Template: a versioned Handlebars template, read-only through the API when declared here. */
export const templateCrd: CrdDefinition = {
  kind: "Template",
  plural: "templates",
  singular: "template",
  shortNames: ["mrtpl"],
  description: "A Handlebars email template. Templates declared here are read-only through the API.",
  spec,
  status,
  printerColumns: [
    readyColumn,
    { name: "Version", type: "integer", jsonPath: ".status.version" },
    readyReasonColumn,
    ageColumn,
  ],
  // Nothing is named after a Template.
  maxNameLength: nameRoomFor(""),
};

/** Template spec as read from the API server. */
export type TemplateSpec = FromSchema<typeof spec>;
/** Template status. */
export type TemplateStatus = FromSchema<typeof status>;
