import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { h, show, table } from "../dom.ts";
import { type Endpoint, endpointForm, managedLabel, showSecretOnce } from "./webhook-form.ts";

/** The account's endpoints, and a form to add one (its signing secret is shown once, then the endpoint). */
export async function webhooksView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const [{ data }, types] = await Promise.all([
    ctx.api.get<{ data: Endpoint[] }>("/v1/webhooks"),
    ctx.api.get<{ data: string[] }>("/v1/webhooks/event-types"),
  ]);
  if (!ctx.current()) return;
  const create = endpointForm(types.data, "new-endpoint");
  create.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    create.clearErrors();
    try {
      const made = await ctx.api.post<Endpoint & { secret: string }>("/v1/webhooks", create.values());
      await showSecretOnce(made.secret, `The endpoint ${made.url} was added.`);
      location.hash = `#/webhooks/${seg(made.id)}`;
    } catch (error) {
      create.showError(error);
    }
  });
  show(
    outlet,
    h("h1", {}, "Webhooks"),
    data.length === 0
      ? h("p", { class: "empty" }, "No webhook endpoints yet.")
      : table(
          ["Endpoint", "Events", "Enabled", "Managed by"],
          data.map((e) => [
            h("a", { href: `#/webhooks/${seg(e.id)}` }, e.url),
            e.events.length === 0 ? "every event" : e.events.join(", "),
            e.enabled ? "yes" : `no${e.disabledReason ? ` (${e.disabledReason})` : ""}`,
            managedLabel(e),
          ]),
          { id: "endpoints" },
        ),
    h("h2", { id: "new-endpoint-title" }, "Add an endpoint"),
    create.form,
  );
}
