import { query, seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { confirmDialog, openDialog } from "../dialog.ts";
import { actionButton, badge, errorText, facts, h, show, table, time } from "../dom.ts";
import { type Endpoint, endpointForm, managedLabel, showSecretOnce } from "./webhook-form.ts";

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

interface Attempt {
  attempt: number;
  at: string;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

const endpointFacts = (e: Endpoint) =>
  facts([
    ["Events", e.events.length === 0 ? "every event" : e.events.join(", ")],
    ["Enabled", e.enabled ? "yes" : `no${e.disabledReason ? ` (${e.disabledReason})` : ""}`],
    ["Description", e.description],
    ["Managed by", managedLabel(e)],
    ["Created", time(e.createdAt)],
    ["Changed", time(e.updatedAt)],
  ]);

/** Why nothing here changes an endpoint the operator manages, and where to change it instead. */
function operatorNotice(e: Endpoint, account: string): HTMLElement {
  return h(
    "p",
    { id: "managed-notice" },
    "This endpoint is declared by the WebhookEndpoint resource ",
    h("code", {}, e.name ?? "?"),
    " in namespace ",
    h("code", {}, account),
    ": change or delete it there (the API refuses changes with managed_by_operator). Deliveries can be replayed.",
  );
}

/** Edit, disable or enable, rotate the secret, delete: for endpoints made through the API. */
function changeSection(ctx: ViewContext, types: string[], start: Endpoint, changed: (e: Endpoint) => void) {
  const path = `/v1/webhooks/${seg(start.id)}`;
  let endpoint = start;
  const status = h("p", { id: "endpoint-status", role: "status" });
  const edit = endpointForm(types, "edit-endpoint", endpoint);
  edit.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "";
    edit.clearErrors();
    try {
      endpoint = await ctx.api.patch<Endpoint>(path, edit.values());
      changed(endpoint);
      status.textContent = "Saved.";
    } catch (error) {
      edit.showError(error);
    }
  });
  const run = (action: () => Promise<void>) => async () => {
    status.textContent = "";
    await action().catch((error: unknown) => {
      status.textContent = errorText(error);
    });
  };
  const toggleLabel = () => (endpoint.enabled ? "Disable" : "Enable");
  const toggle = h("button", { type: "button", class: "secondary", id: "endpoint-toggle" }, toggleLabel());
  toggle.addEventListener(
    "click",
    run(async () => {
      endpoint = await ctx.api.patch<Endpoint>(path, { enabled: !endpoint.enabled });
      toggle.textContent = toggleLabel();
      changed(endpoint);
      status.textContent = endpoint.enabled ? "Enabled." : "Disabled: no events are sent to it.";
    }),
  );
  const rotate = h("button", { type: "button", class: "secondary" }, "Rotate signing secret");
  rotate.addEventListener(
    "click",
    run(async () => {
      const text = "A new secret signs from now on; the current ones keep signing beside it for 24 hours.";
      if (!(await confirmDialog("Rotate the signing secret?", text, "Rotate"))) return;
      const rotated = await ctx.api.post<{ secret: string; previousSecretsExpireAt: string }>(
        `${path}/rotate-secret`,
      );
      const until = new Date(rotated.previousSecretsExpireAt).toLocaleString(undefined, {
        timeZoneName: "short",
      });
      await showSecretOnce(rotated.secret, `The previous secrets keep signing until ${until}.`);
    }),
  );
  const remove = h("button", { type: "button", class: "danger" }, "Delete endpoint");
  remove.addEventListener(
    "click",
    run(async () => {
      const text = `Delete ${endpoint.url}? Its pending deliveries are dropped and its log goes with it.`;
      if (!(await confirmDialog("Delete this endpoint?", text, "Delete"))) return;
      await ctx.api.delete(path);
      location.hash = "#/webhooks";
    }),
  );
  return [h("div", { class: "actions" }, toggle, rotate, remove), status, h("h2", {}, "Edit"), edit.form];
}

/** One delivery's attempts (when, answer, how long), in a dialog. */
async function showAttempts(ctx: ViewContext, endpointId: string, d: Delivery): Promise<void> {
  const found = await ctx.api.get<{ attemptLog: Attempt[] }>(
    `/v1/webhooks/${seg(endpointId)}/deliveries/${seg(d.id)}`,
  );
  const rows = found.attemptLog.map((a) => [
    String(a.attempt),
    time(a.at),
    a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? "—"),
    `${a.durationMs} ms`,
    a.responseExcerpt ? h("pre", {}, a.responseExcerpt) : "—",
  ]);
  await openDialog(
    `${d.eventType} attempts`,
    [
      rows.length === 0
        ? h("p", {}, "Not attempted yet.")
        : table(["#", "At", "Answer", "Took", "Body"], rows),
    ],
    [{ label: "Close", value: "close" }],
  );
}

/** One endpoint, its changes (unless the operator manages it) and its recent deliveries, each replayable. */
export async function webhookDetailView(ctx: ViewContext, outlet: HTMLElement, [id = ""]: string[]) {
  const [endpoint, types] = await Promise.all([
    ctx.api.get<Endpoint>(`/v1/webhooks/${seg(id)}`),
    ctx.api.get<{ data: string[] }>("/v1/webhooks/event-types"),
  ]);
  const title = h("h1", { class: "break" }, endpoint.url);
  const summary = h("div", { id: "endpoint-facts" }, endpointFacts(endpoint));
  const changed = (e: Endpoint) => {
    title.textContent = e.url;
    show(summary, endpointFacts(e));
  };
  const deliveries = h("div", { id: "deliveries" });
  const load = async (force = false) => {
    const page = await ctx.api.get<{ data: Delivery[] }>(
      `/v1/webhooks/${seg(id)}/deliveries${query({ limit: "50" })}`,
    );
    // Redrawing under a reader's focus (a Replay button, an open dialog) would throw it away: wait.
    const busy = deliveries.contains(document.activeElement) || document.querySelector("dialog[open]");
    if (!ctx.current() || (busy && !force)) return;
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
              h(
                "span",
                { class: "actions" },
                actionButton("Attempts", () => showAttempts(ctx, id, d), { class: "secondary" }),
                actionButton(
                  "Replay",
                  async () => {
                    await ctx.api.post(`/v1/webhooks/${seg(id)}/deliveries/${seg(d.id)}/replay`);
                    await load(true);
                    // The redrawn row's button keeps the keyboard where it was.
                    deliveries.querySelector<HTMLElement>(`[data-replay="${CSS.escape(d.id)}"]`)?.focus();
                  },
                  { "data-replay": d.id },
                ),
              ),
            ]),
          ),
    );
  };
  if (!ctx.current()) return;
  show(
    outlet,
    h("p", {}, h("a", { href: "#/webhooks" }, "← Webhooks")),
    title,
    summary,
    endpoint.managedBy === "operator"
      ? operatorNotice(endpoint, ctx.key.account)
      : changeSection(ctx, types.data, endpoint, changed),
    h("h2", {}, "Recent deliveries"),
    deliveries,
  );
  await load();
  ctx.every(10_000, () => load().catch(() => {}));
}
