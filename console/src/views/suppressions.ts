import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { actionButton, h, show, table, time } from "../dom.ts";
import { pager } from "../pager.ts";

interface Suppression {
  address: string;
  reason: string;
  detail: string | null;
  sourceEmailId: string | null;
  createdAt: string;
}

/** The suppression list: look up an address, page through the rest, lift one. */
export async function suppressionsView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const results = h("div", { id: "suppression-results" });
  const search = h("input", {
    type: "search",
    id: "suppression-search",
    placeholder: "address@example.com",
    "aria-label": "Address",
  });
  const cursors: string[] = [];

  const rows = (list: Suppression[]) =>
    list.length === 0
      ? h("p", { class: "empty" }, "Nothing suppressed.")
      : table(
          ["Address", "Reason", "Detail", "Since", ""],
          list.map((s) => [
            s.address,
            s.reason,
            s.sourceEmailId
              ? h("a", { href: `#/emails/${s.sourceEmailId}` }, s.detail ?? "source email")
              : (s.detail ?? "—"),
            time(s.createdAt),
            actionButton("Lift", async () => {
              await ctx.api.delete(`/v1/suppressions/${seg(s.address)}`);
              await load();
            }),
          ]),
        );

  const load = async () => {
    const address = search.value.trim();
    if (address) {
      try {
        const one = await ctx.api.get<Suppression>(`/v1/suppressions/${seg(address)}`);
        show(results, rows([one]));
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
        show(results, h("p", { class: "empty" }, `${address} is not suppressed.`));
      }
      return;
    }
    const page = await ctx.api.get<{ data: Suppression[]; hasMore: boolean }>(
      `/v1/suppressions${query({ limit: "50", after: cursors.at(-1) })}`,
    );
    if (!ctx.current()) return;
    const pages = { hasMore: page.hasMore, lastCursor: page.data.at(-1)?.address };
    show(results, rows(page.data), pager(cursors, pages, load));
  };

  const form = h(
    "form",
    { class: "inline-form", role: "search" },
    search,
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void load();
  });
  show(outlet, h("h1", {}, "Suppressions"), form, results);
  await load();
}
