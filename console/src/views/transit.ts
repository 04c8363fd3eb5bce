import { query } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { type Child, h, show, table, time } from "../dom.ts";

/** A destination's shaping now, as `GET /v1/stats/transit` answers it (null: at its full limits). */
interface ShapingState {
  backedOff: boolean;
  pausedUntil: string | null;
  level: number;
  concurrency: number;
  ratePerMinute: number;
  inFlight: number;
  lastReply: string | null;
  updatedAt: string;
  workers: number;
  workersBackedOff: number;
}
interface TransitDomain {
  domain: string;
  delivered: number;
  bounced: number;
  deferred: number;
  deferrals: Array<{ reason: string; count: number }>;
  sessions: Array<{ mechanism: string; result: string; count: number }>;
  lastFailure: { at: string; reason: string } | null;
  destinations: Array<{ destination: string; name: string; state: ShapingState | null }>;
}
interface Transit {
  from: string;
  to: string;
  domains: TransitDomain[];
}

const PERIODS: Record<string, { label: string; hours: number }> = {
  "24h": { label: "Last 24 hours", hours: 24 },
  "7d": { label: "Last 7 days", hours: 7 * 24 },
  "30d": { label: "Last 30 days", hours: 30 * 24 },
};
const REASONS: Record<string, string> = {
  shaped: "not tried (destination backed off or busy)",
  rate_limited: "rate limited by the receiver",
  receiver_4xx: "4xx from the receiver",
  tls_policy: "TLS policy not met",
  connection: "no connection or reply",
};

const list = (items: Child[], attrs: Record<string, string> = {}) =>
  items.length === 0
    ? "—"
    : h(
        "ul",
        { class: "plain", ...attrs },
        items.map((item) => h("li", {}, item)),
      );

function deferrals(d: TransitDomain): Child {
  if (d.deferrals.length === 0) return d.deferred.toLocaleString();
  return [
    h("strong", {}, d.deferred.toLocaleString()),
    list(
      d.deferrals.map((x) => `${REASONS[x.reason] ?? x.reason}: ${x.count.toLocaleString()}`),
      { "data-part": "deferrals" },
    ),
  ];
}

function sessions(d: TransitDomain): Child {
  return list(
    d.sessions.map((s) =>
      // Failures stand out by weight, not colour alone.
      h(
        s.result === "success" ? "span" : "strong",
        {},
        `${s.mechanism}, ${s.result}: ${s.count.toLocaleString()}`,
      ),
    ),
    { "data-part": "sessions" },
  );
}

/** One destination's shaping: backed off (until when, at what share) or at its full limits. */
function shaping(destination: TransitDomain["destinations"][number]): Child {
  const s = destination.state;
  if (!s)
    return [h("strong", {}, destination.name), " ", h("span", { class: "badge badge-active" }, "full pace")];
  const limits = `${s.concurrency} session${s.concurrency === 1 ? "" : "s"}${
    s.ratePerMinute > 0 ? `, ${Math.round(s.ratePerMinute)}/min` : ""
  }, ${Math.round(s.level * 100)} % of its limits`;
  return [
    h("strong", {}, destination.name),
    " ",
    h(
      "span",
      { class: `badge ${s.backedOff ? "badge-deferred" : "badge-active"}` },
      s.backedOff ? "backed off" : "full pace",
    ),
    s.pausedUntil ? [" until ", time(s.pausedUntil)] : null,
    h(
      "div",
      { class: "muted" },
      limits,
      s.workers > 1 ? ` (${s.workersBackedOff} of ${s.workers} workers backed off)` : "",
    ),
    s.lastReply ? h("div", { class: "muted reply" }, `after "${s.lastReply}"`) : null,
  ];
}

function domains(transit: Transit): HTMLElement {
  if (transit.domains.length === 0) {
    return h("p", { class: "empty" }, "No mail to any receiving domain in this period.");
  }
  return table(
    ["Domain", "Delivered", "Bounced", "Deferred", "TLS sessions", "Last failure", "Shaping now"],
    transit.domains.map((d) => [
      d.domain,
      d.delivered.toLocaleString(),
      d.bounced.toLocaleString(),
      deferrals(d),
      sessions(d),
      d.lastFailure ? [time(d.lastFailure.at), h("div", { class: "reply" }, d.lastFailure.reason)] : "—",
      list(d.destinations.map(shaping), { "data-part": "shaping" }),
    ]),
    { id: "transit-domains" },
  );
}

/**
 * The transit page (issue 32 item 6, ADR 0066): per receiving domain the account's mail went to over a period
 * (`#/transit/<period>`), its TLS sessions by mechanism and result, deliveries, bounces, deferrals by reason and
 * last failure, and the current shaping state of the destinations that serve it.
 */
export async function transitView(ctx: ViewContext, outlet: HTMLElement, params: string[]): Promise<void> {
  const period = PERIODS[params[0] ?? ""] ? (params[0] as string) : "24h";
  const chosen = PERIODS[period] ?? { label: "", hours: 24 };
  const select = h(
    "select",
    { id: "transit-period" },
    Object.entries(PERIODS).map(([value, p]) => h("option", { value, selected: value === period }, p.label)),
  );
  select.addEventListener("change", () => {
    location.hash = `#/transit/${select.value}`;
  });
  const body = h("div", { id: "transit", "aria-live": "polite" });
  const load = async () => {
    const from = new Date(Date.now() - chosen.hours * 3_600_000).toISOString();
    const transit = await ctx.api.get<Transit>(`/v1/stats/transit${query({ from })}`);
    if (!ctx.current()) return;
    show(body, domains(transit));
  };
  show(
    outlet,
    h("h1", {}, "Transit"),
    h("div", { class: "filters" }, h("label", { class: "field" }, "Period", select)),
    h(
      "p",
      { class: "muted" },
      "How your mail met each receiving domain: TLS per session, deferrals by reason, and how each " +
        "destination (a provider such as Gmail, or an MX host) is shaped right now.",
    ),
    body,
  );
  await load();
  ctx.every(30_000, load);
}
