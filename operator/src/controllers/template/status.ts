/** Template status: the version sends now get. */
import type { TemplateRecord } from "@mailroom/core/templates";
import type { StatusFields } from "../kind-controller.ts";

export function templateFields(record: TemplateRecord): StatusFields<"Template"> {
  return { version: record.version };
}

/** The name sends refer to: spec.name, else the resource's name. */
export function templateName(resource: { metadata: { name?: string }; spec: { name?: string } }): string {
  return resource.spec.name ?? resource.metadata.name ?? "";
}
