import { query } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { h, show, table, time } from "../dom.ts";
import { pager } from "../pager.ts";
import { readableDetail } from "../readable.ts";

/** One entry of GET /v1/audit (ADR 0062). */
interface AuditEntry {
  id: string;
  at: string;
  /** `keyId`: a person's change, the key they acted with (ADR 0069). */
  actor: { kind: string; id: string; label: string | null; keyId: string | null };
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  origin: { ip: string | null; userAgent: string | null };
}

const ACTOR_KINDS: Record<string, string> = {
  key: "API key",
  person: "Person",
  operator: "Resource",
  smtp: "SMTP login",
  cli: "CLI",
  system: "Mailroom",
};

/** Kept across visits, as the email log keeps its filters. */
const state: { action: string; actor: string; cursors: string[] } = { action: "", actor: "", cursors: [] };

const actorCell = (a: AuditEntry["actor"]) =>
  h(
    "span",
    { title: a.id },
    `${ACTOR_KINDS[a.kind] ?? a.kind} `,
    h("code", {}, a.label ? `${a.label} (${a.id})` : a.id),
    a.keyId ? [" with key ", h("code", {}, a.keyId)] : "",
  );

const originCell = (o: AuditEntry["origin"]) =>
  o.ip ? h("span", { title: o.userAgent ?? "" }, o.ip, o.userAgent ? h("br") : "", o.userAgent ?? "") : "—";

/** The audit trail: who changed what in the account, when and from where, newest first. */
export async function auditView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const results = h("div", { id: "audit-results" });
  // The filter's choices come from the API (core's AUDIT_ACTIONS): the console keeps no copy to fall behind.
  const actions = await ctx.api.get<{ data: string[] }>("/v1/audit/actions");
  if (!ctx.current()) return;
  const action = h(
    "select",
    { id: "audit-action", name: "action" },
    h("option", { value: "" }, "any"),
    ...actions.data.map((a) => h("option", { value: a }, a)),
  );
  action.value = state.action;
  const actor = h("input", {
    type: "search",
    id: "audit-actor",
    name: "actor",
    placeholder: "key id, person's subject or Kind/namespace/name",
    "aria-keyshortcuts": "/",
  });
  actor.value = state.actor;

  const load = async () => {
    const page = await ctx.api.get<{ data: AuditEntry[]; hasMore: boolean }>(
      `/v1/audit${query({ limit: "50", action: state.action, actor: state.actor, after: state.cursors.at(-1) })}`,
    );
    if (!ctx.current()) return;
    const rows =
      page.data.length === 0
        ? h("p", { class: "empty" }, "No changes recorded.")
        : table(
            ["When", "Who", "Action", "Target", "From", "Detail"],
            page.data.map((e) => [
              time(e.at),
              actorCell(e.actor),
              h("code", {}, e.action),
              e.target ?? "—",
              originCell(e.origin),
              Object.keys(e.detail).length > 0 ? h("pre", {}, readableDetail(e.detail)) : "—",
            ]),
            { id: "audit-table" },
          );
    const pages = { hasMore: page.hasMore, lastCursor: page.data.at(-1)?.id };
    show(results, rows, pager(state.cursors, pages, load));
  };

  const form = h(
    "form",
    { class: "filters", role: "search" },
    h("label", { class: "field" }, h("span", {}, "Action"), action),
    h("label", { class: "field" }, h("span", {}, "Actor (/)"), actor),
    h("button", { type: "submit" }, "Filter"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    state.action = action.value;
    state.actor = actor.value.trim();
    state.cursors.length = 0;
    void load();
  });
  show(outlet, h("h1", {}, "Audit trail"), form, results);
  await load();
}
