import type { TemplateManager, TemplateSummary, TemplateVersion, VariablesSchema } from "./types.ts";

/** A `templates` row as pg returns it. */
export interface TemplateRow {
  id: string;
  account: string;
  name: string;
  description: string | null;
  managed_by: TemplateManager;
  current_version: number;
  created_at: Date;
  updated_at: Date;
}

/** A `template_versions` row as pg returns it. */
export interface TemplateVersionRow {
  template_id: string;
  version: number;
  subject: string;
  html: string | null;
  text: string | null;
  variables: VariablesSchema | null;
  created_at: Date;
}

export const TEMPLATE_COLUMNS = `id, account, name, description, managed_by, current_version, created_at, updated_at`;
export const VERSION_COLUMNS = `template_id, version, subject, html, text, variables, created_at`;

export function toTemplateSummary(row: TemplateRow): TemplateSummary {
  return {
    id: row.id,
    account: row.account,
    name: row.name,
    description: row.description,
    managedBy: row.managed_by,
    version: row.current_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toTemplateVersion(row: TemplateVersionRow): TemplateVersion {
  return {
    templateId: row.template_id,
    version: row.version,
    subject: row.subject,
    html: row.html,
    text: row.text,
    variables: row.variables,
    createdAt: row.created_at,
  };
}
