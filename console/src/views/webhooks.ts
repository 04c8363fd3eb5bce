import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { actionButton, badge, facts, h, show, table, time } from "../dom.ts";

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  managedBy: string;
  createdAt: string;
}

interface Delivery {
  id: string;
  eventType: string;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
}

export async function webhooksView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const { data } = await ctx.api.get<{ data: Endpoint[] }>("/v1/webhooks");
  if (!ctx.current()) return;
  show(
    outlet,
    h("h1", {}, "Webhooks"),
    data.length === 0
      ? h("p", { class: "empty" }, "No webhook endpoints yet.")
      : table(
          ["Endpoint", "Events", "Enabled"],
          data.map((e) => [
            h("a", { href: `#/webhooks/${seg(e.id)}` }, e.url),
            e.events.join(", "),
            e.enabled ? "yes" : "no",
          ]),
        ),
  );
}

/** One endpoint and its recent deliveries (state, attempts, last answer), each of which can be replayed. */
export async function webhookDetailView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [id = ""]: string[],
): Promise<void> {
  const endpoint = await ctx.api.get<Endpoint>(`/v1/webhooks/${seg(id)}`);
  const deliveries = h("div", { id: "deliveries" });
  const load = async () => {
    const page = await ctx.api.get<{ data: Delivery[] }>(
      `/v1/webhooks/${seg(id)}/deliveries${query({ limit: "50" })}`,
    );
    if (!ctx.current()) return;
    show(
      deliveries,
      page.data.length === 0
        ? h("p", { class: "empty" }, "No deliveries yet.")
        : table(
            ["Event", "State", "Attempts", "Last answer", "Created", ""],
            page.data.map((d) => [
              d.eventType,
              badge(d.state),
              String(d.attempts),
              d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? "—"),
              time(d.createdAt),
              actionButton("Replay", async () => {
                await ctx.api.post(`/v1/webhooks/${seg(id)}/deliveries/${seg(d.id)}/replay`);
                await load();
              }),
            ]),
          ),
    );
  };
  if (!ctx.current()) return;
  show(
    outlet,
    h("p", {}, h("a", { href: "#/webhooks" }, "← Webhooks")),
    h("h1", { class: "break" }, endpoint.url),
    facts([
      ["Events", endpoint.events.join(", ")],
      ["Enabled", endpoint.enabled ? "yes" : "no"],
      ["Description", endpoint.description],
      ["Managed by", endpoint.managedBy],
      ["Created", time(endpoint.createdAt)],
    ]),
    h("h2", {}, "Recent deliveries"),
    deliveries,
  );
  await load();
  ctx.every(10_000, () => load().catch(() => {}));
}
