import canonicalize from "canonicalize";
import { v7 as uuidv7 } from "uuid";
import { recordAuditEvent } from "../audit/record.ts";
import type { AuditChange, AuditContext } from "../audit/types.ts";
import { isUuid } from "../db/ids.ts";
import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import { MailroomError } from "../errors/index.ts";
import { exampleVariables } from "./examples.ts";
import { checkTemplateContent } from "./render.ts";
import {
  TEMPLATE_COLUMNS,
  type TemplateRow,
  type TemplateVersionRow,
  toTemplateSummary,
  toTemplateVersion,
  VERSION_COLUMNS,
} from "./rows.ts";
import {
  type CreateTemplateInput,
  DEFAULT_PAGE_LIMIT,
  MAX_DESCRIPTION_LENGTH,
  MAX_PAGE_LIMIT,
  type Page,
  TEMPLATE_NAME_PATTERN,
  type TemplateContent,
  type TemplateManager,
  type TemplateRecord,
  type TemplateSummary,
  type TemplateVersionRecord,
  type UpdateTemplateInput,
} from "./types.ts";

const invalid = (message: string) => new MailroomError("validation_error", message);

function checkMetadata(input: { name?: string | undefined; description?: string | null | undefined }): void {
  if (input.name !== undefined && !TEMPLATE_NAME_PATTERN.test(input.name)) {
    throw invalid("name: 1 to 128 letters, digits, `.`, `_` or `-`, starting with a letter or digit");
  }
  if (typeof input.description === "string" && input.description.length > MAX_DESCRIPTION_LENGTH) {
    throw invalid(`description: at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
}

function nameTaken(name: string, error: unknown): MailroomError {
  return new MailroomError("conflict", `A template named ${name} already exists in this account.`, {
    cause: error,
  });
}

async function insertVersion(
  client: PoolClient,
  templateId: string,
  version: number,
  content: TemplateContent,
) {
  await client.query(
    `insert into template_versions (template_id, version, subject, html, text, variables)
     values ($1, $2, $3, $4, $5, $6::jsonb)`,
    [
      templateId,
      version,
      content.subject,
      content.html,
      content.text,
      content.variables ? JSON.stringify(content.variables) : null,
    ],
  );
}

/** The Template resource (`Template/<name>`, in the account's namespace) that declares an operator's template. */
async function resourceOf(db: Queryable, id: string): Promise<string | null> {
  const { rows } = await db.query<{ name: string }>(
    `select name from operator_bindings where kind = 'Template' and target_id = $1`,
    [id],
  );
  return rows[0] ? `Template/${rows[0].name}` : null;
}

async function loadRecord(db: Queryable, row: TemplateRow): Promise<TemplateRecord> {
  const { rows } = await db.query<TemplateVersionRow>(
    `select ${VERSION_COLUMNS} from template_versions where template_id = $1 order by version`,
    [row.id],
  );
  const current = rows.find((version) => version.version === row.current_version);
  if (!current) throw new Error(`template ${row.id} has no version ${row.current_version}`);
  const { subject, html, text, variables } = toTemplateVersion(current);
  const content = { subject, html, text, variables };
  return {
    ...toTemplateSummary(row),
    managedByResource: row.managed_by === "operator" ? await resourceOf(db, row.id) : null,
    subject,
    html,
    text,
    variables,
    versions: rows.map((version) => ({ version: version.version, createdAt: version.created_at })),
    exampleVariables: exampleVariables(content),
  };
}

/**
 * Creates a template and its version 1. Throws `validation_error` for a bad name or content (naming the part,
 * line and column of a syntax error), `conflict` when the account already has a template of that name.
 */
export async function createTemplate(pool: Pool, input: CreateTemplateInput): Promise<TemplateRecord> {
  checkMetadata(input);
  const content: TemplateContent = {
    subject: input.subject,
    html: input.html ?? null,
    text: input.text ?? null,
    variables: input.variables ?? null,
  };
  checkTemplateContent(content);
  try {
    return await withTransaction(pool, async (client) => {
      const { rows } = await client.query<TemplateRow>(
        `insert into templates (id, account, name, description, managed_by, current_version)
         values ($1, mailroom_ensure_account($2), $3, $4, $5, 1) returning ${TEMPLATE_COLUMNS}`,
        [uuidv7(), input.account, input.name, input.description ?? null, input.managedBy ?? "api"],
      );
      const row = rows[0] as TemplateRow;
      await insertVersion(client, row.id, 1, content);
      await audit(client, input.by, { account: input.account, action: "template.created", target: row.id });
      return loadRecord(client, row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(input.name, error);
    throw error;
  }
}

/**
 * One page of an account's templates, newest first. `after` is the id of the last template of the previous
 * page; ids are UUIDv7, so the cursor keeps its place even if that template has since been deleted.
 */
export async function listTemplates(
  db: Queryable,
  account: string,
  options: { after?: string | undefined; limit?: number | undefined } = {},
): Promise<Page<TemplateSummary>> {
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw invalid(`limit: an integer from 1 to ${MAX_PAGE_LIMIT}`);
  }
  if (options.after !== undefined && !isUuid(options.after)) throw invalid("after: must be a template id");
  const { rows } = await db.query<TemplateRow>(
    `select ${TEMPLATE_COLUMNS} from templates
     where account = $1 and ($2::uuid is null or id < $2::uuid)
     order by id desc limit $3`,
    [account, options.after ?? null, limit + 1],
  );
  return { data: rows.slice(0, limit).map(toTemplateSummary), hasMore: rows.length > limit };
}

/** One template of an account with its current content and version list; another account's is undefined. */
export async function getTemplate(
  db: Queryable,
  account: string,
  id: string,
): Promise<TemplateRecord | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<TemplateRow>(
    `select ${TEMPLATE_COLUMNS} from templates where id = $1 and account = $2`,
    [id, account],
  );
  return rows[0] ? loadRecord(db, rows[0]) : undefined;
}

/** Like getTemplate, by the template's name in the account. */
export async function getTemplateByName(
  db: Queryable,
  account: string,
  name: string,
): Promise<TemplateRecord | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `select ${TEMPLATE_COLUMNS} from templates where name = $1 and account = $2`,
    [name, account],
  );
  return rows[0] ? loadRecord(db, rows[0]) : undefined;
}

/** One stored version of an account's template, or undefined. */
export async function getTemplateVersion(
  db: Queryable,
  account: string,
  id: string,
  version: number,
): Promise<TemplateVersionRecord | undefined> {
  if (!isUuid(id) || !Number.isInteger(version)) return undefined;
  const { rows } = await db.query<TemplateVersionRow>(
    `select ${VERSION_COLUMNS} from template_versions
     where template_id = (select id from templates where id = $1 and account = $2) and version = $3`,
    [id, account, version],
  );
  if (!rows[0]) return undefined;
  const found = toTemplateVersion(rows[0]);
  return { ...found, exampleVariables: exampleVariables(found) };
}

/** Who is changing a template: only the operator may change what the operator declared. */
export interface TemplateTarget {
  account: string;
  id: string;
  actor: TemplateManager;
  /** Who: recorded in the audit trail in the change's transaction. */
  by?: AuditContext | undefined;
}

async function audit(client: PoolClient, by: AuditContext | undefined, change: AuditChange): Promise<void> {
  if (by) await recordAuditEvent(client, by, change);
}

async function lockTemplate(client: PoolClient, target: TemplateTarget): Promise<TemplateRow> {
  const { rows } = await client.query<TemplateRow>(
    `select ${TEMPLATE_COLUMNS} from templates where id = $1 and account = $2 for update`,
    [isUuid(target.id) ? target.id : null, target.account],
  );
  const row = rows[0];
  if (!row) throw new MailroomError("not_found", "No template with this id.");
  if (row.managed_by === "operator" && target.actor !== "operator") {
    throw new MailroomError(
      "managed_by_operator",
      `Template ${row.name} is declared by a Template resource; change it there.`,
    );
  }
  return row;
}

/**
 * Changes a template. Content changes (subject, html, text, variables) add a new immutable version and make
 * it current; name and description change in place. A change that alters nothing writes nothing, so a
 * retried PATCH does not pile up versions. Throws `not_found`, `managed_by_operator`, `conflict` (name taken)
 * or `validation_error`.
 */
export async function updateTemplate(
  pool: Pool,
  target: TemplateTarget,
  patch: UpdateTemplateInput,
): Promise<TemplateRecord> {
  checkMetadata(patch);
  try {
    return await withTransaction(pool, async (client) => {
      const row = await lockTemplate(client, target);
      const current = await loadRecord(client, row);
      const next: TemplateContent = {
        subject: patch.subject ?? current.subject,
        html: patch.html === undefined ? current.html : patch.html,
        text: patch.text === undefined ? current.text : patch.text,
        variables: patch.variables === undefined ? current.variables : patch.variables,
      };
      const contentChanged =
        next.subject !== current.subject ||
        next.html !== current.html ||
        next.text !== current.text ||
        // Canonical JSON: jsonb does not keep key order, so a resent identical schema must compare equal.
        canonicalize(next.variables) !== canonicalize(current.variables);
      const name = patch.name ?? row.name;
      const description = patch.description === undefined ? row.description : patch.description;
      if (!contentChanged && name === row.name && description === row.description) return current;
      if (contentChanged) checkTemplateContent(next);
      const version = contentChanged ? row.current_version + 1 : row.current_version;
      if (contentChanged) await insertVersion(client, row.id, version, next);
      const { rows } = await client.query<TemplateRow>(
        `update templates set name = $2, description = $3, current_version = $4, updated_at = now()
         where id = $1 returning ${TEMPLATE_COLUMNS}`,
        [row.id, name, description, version],
      );
      const detail = { name, ...(contentChanged ? { version } : {}) };
      await audit(client, target.by, {
        account: target.account,
        action: "template.updated",
        target: row.id,
        detail,
      });
      return loadRecord(client, rows[0] as TemplateRow);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(patch.name ?? "", error);
    throw error;
  }
}

/** Deletes a template and all its versions. Throws `not_found` or `managed_by_operator`. */
export async function deleteTemplate(pool: Pool, target: TemplateTarget): Promise<void> {
  await withTransaction(pool, async (client) => {
    const row = await lockTemplate(client, target);
    await client.query(`delete from templates where id = $1`, [row.id]);
    await audit(client, target.by, {
      account: target.account,
      action: "template.deleted",
      target: row.id,
      detail: { name: row.name },
    });
  });
}
