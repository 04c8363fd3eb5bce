import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { confirmDialog } from "../dialog.ts";
import { badge, errorText, h, show, table, time } from "../dom.ts";
import { pager } from "../pager.ts";
import { createKeyForm } from "./keys-create.ts";

/** One key of GET /v1/keys (ADR 0069): never its secret. */
interface KeyEntry {
  keyId: string;
  name: string | null;
  scopes: string[];
  mode: string;
  state: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  managedBy: string;
  owner: { issuer: string; subject: string; email: string | null } | null;
}

/** Kept across visits, as the other lists keep their filters. */
const state: { filter: string; cursors: string[] } = { filter: "active", cursors: [] };

const ownerCell = (k: KeyEntry) =>
  k.owner
    ? h("span", { title: `${k.owner.issuer} ${k.owner.subject}` }, k.owner.email ?? k.owner.subject)
    : "—";

const MANAGERS: Record<string, string> = { cli: "CLI", api: "API", operator: "ApiKey resource" };

/**
 * The revoke control: asks first in the console's confirmation dialog (Cancel has the focus), naming the key
 * and what revoking does; only the confirmation calls the API. Keys the console may not revoke say why instead.
 */
function revokeCell(
  ctx: ViewContext,
  key: KeyEntry,
  done: (message: string) => Promise<void>,
): HTMLElement | string {
  if (key.state !== "active") return "—";
  if (key.keyId === ctx.key.keyId) return h("span", { class: "muted" }, "this key (sign out to end it)");
  if (key.managedBy === "operator") return h("span", { class: "muted" }, "delete its ApiKey resource");
  const label = key.name ? `${key.name} (${key.keyId})` : key.keyId;
  const error = h("span", { class: "action-error", role: "status" });
  const button = h(
    "button",
    { type: "button", class: "secondary", "aria-label": `Revoke ${label}` },
    "Revoke",
  );
  button.addEventListener("click", async () => {
    const text = "It stops working at once and its unsent mail fails.";
    if (!(await confirmDialog(`Revoke ${label}?`, text, "Revoke now"))) return;
    button.disabled = true;
    try {
      const revoked = await ctx.api.post<{ failedEmails: number }>(`/v1/keys/${seg(key.keyId)}/revoke`);
      await done(
        `Revoked ${label}. ${revoked.failedEmails} unsent email${revoked.failedEmails === 1 ? "" : "s"} ` +
          "of it failed with api_key_revoked.",
      );
    } catch (e) {
      error.textContent = errorText(e);
      button.disabled = false;
    }
  });
  return h("span", { class: "action" }, button, error);
}

/** The account's API keys: list by state, create one (its secret shown once), revoke one with confirmation. */
export async function keysView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const results = h("div", { id: "keys-results" });
  const notice = h("p", { role: "status", id: "keys-notice" });
  const reveal = h("div", { id: "new-key-holder" });
  const filter = h(
    "select",
    { id: "keys-state", name: "state" },
    ...[
      ["active", "active"],
      ["", "all"],
      ["revoked", "revoked"],
      ["expired", "expired"],
    ].map(([value, text]) => h("option", { value }, text)),
  );
  filter.value = state.filter;

  const load = async () => {
    const page = await ctx.api.get<{ data: KeyEntry[]; hasMore: boolean }>(
      `/v1/keys${query({ limit: "50", state: state.filter, after: state.cursors.at(-1) })}`,
    );
    if (!ctx.current()) return;
    const revoked = async (message: string) => {
      notice.textContent = message;
      await load();
    };
    const rows =
      page.data.length === 0
        ? h("p", { class: "empty" }, "No keys.")
        : table(
            ["Name", "Key ID", "Scopes", "Owner", "Created", "Expires", "Last used", "Made by", "State", ""],
            page.data.map((k) => [
              k.name ?? "—",
              h("code", {}, k.keyId),
              k.scopes.join(", ") + (k.mode === "sandbox" ? " (sandbox)" : ""),
              ownerCell(k),
              time(k.createdAt),
              k.expiresAt ? time(k.expiresAt) : "never",
              time(k.lastUsedAt),
              MANAGERS[k.managedBy] ?? k.managedBy,
              badge(k.state),
              revokeCell(ctx, k, revoked),
            ]),
            { id: "keys-table" },
          );
    const pages = { hasMore: page.hasMore, lastCursor: page.data.at(-1)?.keyId };
    show(results, rows, pager(state.cursors, pages, load));
  };

  filter.addEventListener("change", () => {
    state.filter = filter.value;
    state.cursors.length = 0;
    void load();
  });
  const created = async () => {
    state.cursors.length = 0;
    await load();
  };
  show(
    outlet,
    h("h1", {}, "API keys"),
    reveal,
    createKeyForm(ctx.api, ctx.key.scopes, reveal, created),
    h("h2", {}, "Keys of this account"),
    h("label", { class: "field" }, h("span", {}, "Show"), filter),
    notice,
    results,
  );
  await load();
}
