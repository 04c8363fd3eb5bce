import type { AuditContext } from "../audit/types.ts";
/** Who owns a template: the API (editable there) or the operator (declared by a Template CR, read-only in the API). */
export type TemplateManager = "api" | "operator";

/** The renderable parts of a template, in the order errors name them. */
export const TEMPLATE_PARTS = ["subject", "html", "text"] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

/** A JSON Schema (draft-07) object describing a template's variables. */
export type VariablesSchema = Record<string, unknown>;

/** What a version renders. Immutable once stored. */
export interface TemplateContent {
  subject: string;
  html: string | null;
  text: string | null;
  variables: VariablesSchema | null;
}

export interface TemplateVersion extends TemplateContent {
  templateId: string;
  version: number;
  createdAt: Date;
}

/** A stored version as the API shows it: with the variables its preview starts from. */
export interface TemplateVersionRecord extends TemplateVersion {
  /** From the schema's declared `examples`, else made up from the schema and the variables the parts read. */
  exampleVariables: Record<string, unknown>;
}

/** A template without its content, as listed. */
export interface TemplateSummary {
  id: string;
  account: string;
  name: string;
  description: string | null;
  managedBy: TemplateManager;
  /** The current version number. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A template with the content of its current version and the numbers and dates of all its versions. */
export interface TemplateRecord extends TemplateSummary, TemplateContent {
  versions: { version: number; createdAt: Date }[];
  /** For a template the operator manages, the resource declaring it (`Template/<name>`); else null. */
  managedByResource: string | null;
  /** The current version's example variables (see TemplateVersionRecord). */
  exampleVariables: Record<string, unknown>;
}

export interface CreateTemplateInput {
  account: string;
  name: string;
  description?: string | null | undefined;
  subject: string;
  html?: string | null | undefined;
  text?: string | null | undefined;
  variables?: VariablesSchema | null | undefined;
  managedBy?: TemplateManager;
  /** Who creates it: recorded in the audit trail in the same transaction. */
  by?: AuditContext | undefined;
}

/**
 * A change to a template. Absent fields keep their value; `null` clears an optional one. Name and
 * description are metadata and change in place; any change to the content makes a new version.
 */
export interface UpdateTemplateInput {
  name?: string | undefined;
  description?: string | null | undefined;
  subject?: string | undefined;
  html?: string | null | undefined;
  text?: string | null | undefined;
  variables?: VariablesSchema | null | undefined;
}

/** A page of a list: `hasMore` tells whether another page follows the last item. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** What a template renders to, with the version it came from. */
export interface RenderedTemplate {
  subject: string;
  html?: string;
  text?: string;
  templateId: string;
  version: number;
}

/** Same rule as the table's check: Kubernetes object names fit. */
export const TEMPLATE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_SUBJECT_SOURCE_LENGTH = 2000;
/** Each body source is capped so that compiling a template stays cheap on the request path. */
export const MAX_BODY_SOURCE_LENGTH = 512 * 1024;
