import { query } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { badge, h, show, table, time } from "../dom.ts";

export interface EmailSummary {
  id: string;
  status: string;
  /** The door it came through (issue 33 item 5). */
  source: "api" | "smtp";
  failureReason: string | null;
  from: string;
  to: string[];
  subject: string;
  category: string;
  tags: Array<{ name: string; value: string }>;
  scheduledAt: string | null;
  attempts: number;
  lastSmtpResponse: string | null;
  createdAt: string;
}

const STATUSES = [
  "",
  "scheduled",
  "queued",
  "sending",
  "delivered",
  "deferred",
  "bounced",
  "failed",
  "canceled",
];
const FILTERS = ["q", "status", "to", "from", "category", "tag", "since", "until"] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** Kept across visits, so coming back from an email shows the same filtered page. */
const state: { filters: Filters; cursors: string[]; live: boolean } = {
  filters: {},
  cursors: [],
  live: true,
};

/** datetime-local values are local times without a zone: the API wants RFC 3339. */
function rfc3339(local: string | undefined): string | undefined {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

function filterForm(onChange: () => void): HTMLElement {
  const field = (name: keyof Filters, label: string, control: HTMLInputElement | HTMLSelectElement) => {
    control.name = name;
    control.id = `filter-${name}`;
    control.value = state.filters[name] ?? "";
    return h("label", { class: "field" }, h("span", {}, label), control);
  };
  const form = h(
    "form",
    { class: "filters", role: "search" },
    field(
      "q",
      "Search (/)",
      h("input", {
        type: "search",
        placeholder: "subject words, an address, <message-id> or name:value",
        "aria-keyshortcuts": "/",
      }),
    ),
    field(
      "status",
      "Status",
      h(
        "select",
        {},
        STATUSES.map((s) => h("option", { value: s }, s || "any")),
      ),
    ),
    field("to", "To", h("input", { type: "search", placeholder: "you@example.com" })),
    field("from", "From", h("input", { type: "search", placeholder: "hello@acme.test" })),
    field("category", "Category", h("input", { type: "search", placeholder: "transactional" })),
    field("tag", "Tag", h("input", { type: "search", placeholder: "name:value" })),
    field("since", "Since", h("input", { type: "datetime-local" })),
    field("until", "Until", h("input", { type: "datetime-local" })),
    h("button", { type: "submit" }, "Apply"),
    h("button", { type: "reset", class: "secondary" }, "Clear"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    state.filters = Object.fromEntries(
      FILTERS.map((f) => [f, String(data.get(f) ?? "").trim()]).filter(([, v]) => v),
    );
    state.cursors = [];
    onChange();
  });
  form.addEventListener("reset", () => {
    state.filters = {};
    state.cursors = [];
    setTimeout(onChange);
  });
  return form;
}

export function recipients(to: string[]): string {
  return to.length > 2 ? `${to.slice(0, 2).join(", ")} +${to.length - 2}` : to.join(", ");
}

/** The email log: filters, cursor paging (older/newer), and live refresh of the page on screen. */
export async function emailsView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const results = h("div", { id: "email-results", "aria-live": "polite" });
  const pager = h("div", { class: "pager" });
  const live = h("input", { type: "checkbox", id: "live", checked: state.live });
  live.addEventListener("change", () => {
    state.live = live.checked;
  });

  const load = async () => {
    const f = state.filters;
    const page = await ctx.api.get<{ data: EmailSummary[]; hasMore: boolean }>(
      `/v1/emails${query({
        limit: "25",
        after: state.cursors.at(-1),
        q: f.q,
        status: f.status,
        to: f.to,
        from: f.from,
        category: f.category,
        tag: f.tag,
        since: rfc3339(f.since),
        until: rfc3339(f.until),
      })}`,
    );
    if (!ctx.current()) return;
    show(
      results,
      page.data.length === 0
        ? h("p", { class: "empty" }, "No emails match.")
        : table(
            ["Status", "Subject", "To", "From", "Source", "Created"],
            page.data.map((e) => [
              badge(e.status),
              h("a", { href: `#/emails/${e.id}`, class: "subject" }, e.subject || "(no subject)"),
              recipients(e.to),
              e.from,
              e.source === "smtp" ? "SMTP" : "API",
              time(e.createdAt),
            ]),
            { class: "emails" },
          ),
    );
    const newer = h(
      "button",
      { type: "button", class: "secondary", disabled: state.cursors.length === 0 },
      "← Newer",
    );
    newer.addEventListener("click", () => {
      state.cursors.pop();
      void load();
    });
    const older = h("button", { type: "button", class: "secondary", disabled: !page.hasMore }, "Older →");
    older.addEventListener("click", () => {
      const last = page.data.at(-1);
      if (last) state.cursors.push(last.id);
      void load();
    });
    show(pager, newer, older);
  };

  show(
    outlet,
    h("div", { class: "title-row" }, h("h1", {}, "Emails"), h("label", { class: "toggle" }, live, " Live")),
    filterForm(() => void load()),
    results,
    pager,
  );
  await load();
  ctx.every(5000, async () => {
    if (state.live) await load().catch(() => {});
  });
}
