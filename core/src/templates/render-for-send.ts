import { isUuid } from "../db/ids.ts";
import type { Queryable } from "../db/pool.ts";
import { MailroomError } from "../errors/index.ts";
import { renderContent } from "./render.ts";
import { type TemplateVersionRow, toTemplateVersion, VERSION_COLUMNS } from "./rows.ts";
import type { RenderedTemplate } from "./types.ts";

/** How a send (or a preview) names a template: by id or by name, optionally a version, with its variables. */
export interface TemplateRef {
  id?: string | undefined;
  name?: string | undefined;
  /** A stored version number; the current version when absent. */
  version?: number | undefined;
  variables: Record<string, unknown>;
}

/**
 * Renders an account's template for a send, from the named version or the current one. The result carries
 * the template id and the version used, so the email log can show exactly what was sent. Throws
 * `validation_error` for a malformed reference, `not_found` when the account has no such template or version
 * (another account's template is indistinguishable from a missing one), and `template_render_error` naming
 * missing or schema-invalid variables.
 */
export async function renderTemplateForSend(
  db: Queryable,
  account: string,
  ref: TemplateRef,
): Promise<RenderedTemplate> {
  if ((ref.id === undefined) === (ref.name === undefined)) {
    throw new MailroomError("validation_error", "template: give either id or name");
  }
  if (ref.version !== undefined && (!Number.isInteger(ref.version) || ref.version < 1)) {
    throw new MailroomError("validation_error", "template.version: a positive integer");
  }
  if (typeof ref.variables !== "object" || ref.variables === null || Array.isArray(ref.variables)) {
    throw new MailroomError("validation_error", "template.variables: must be an object");
  }
  const byId = ref.id !== undefined;
  const notFound = () =>
    new MailroomError(
      "not_found",
      `No template ${byId ? "with id" : "named"} ${byId ? ref.id : ref.name}${ref.version ? ` version ${ref.version}` : ""}.`,
    );
  if (byId && !isUuid(ref.id ?? "")) throw notFound();
  const { rows } = await db.query<TemplateVersionRow>(
    `select ${VERSION_COLUMNS.split(", ")
      .map((column) => `v.${column}`)
      .join(", ")}
     from templates t
     join template_versions v on v.template_id = t.id and v.version = coalesce($3::integer, t.current_version)
     where t.account = $1 and ${byId ? "t.id = $2::uuid" : "t.name = $2"}`,
    [account, byId ? ref.id : ref.name, ref.version ?? null],
  );
  const row = rows[0];
  if (!row) throw notFound();
  const version = toTemplateVersion(row);
  const rendered = renderContent(version, ref.variables);
  return { ...rendered, templateId: version.templateId, version: version.version };
}
