import { query } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { badge, h, show, table, time } from "../dom.ts";
import { lineChart, type Series, shareBar } from "./charts.ts";

/** The figures `GET /v1/stats` answers for a period, a bucket and a split value. */
interface Figures {
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  failed: number;
  deferred: number;
  deliveryRate: number | null;
  latency: { p50Ms: number | null; p99Ms: number | null };
}
interface Stats {
  from: string;
  to: string;
  bucket: "hour" | "day";
  totals: Figures;
  series: Array<Figures & { start: string }>;
  groups: Array<Figures & { value: string }>;
}
interface Rate {
  domain: string;
  windowHours: number;
  sent: number;
  bounceRate?: number | null;
  complaintRate?: number | null;
  level: string;
}
interface Account {
  account: string;
  sendingStatus: "active" | "paused";
  paused: { at: string; by: string | null; reason: string | null } | null;
  reputation: {
    thresholds: Record<string, number>;
    rates: Rate[];
    computedAt: string | null;
  };
}

/** The periods offered: how far back, and the bucket that gives a readable number of points. */
const PERIODS: Record<string, { label: string; bucket: "hour" | "day"; days: number }> = {
  "24h": { label: "Last 24 hours (hourly)", bucket: "hour", days: 1 },
  "7d": { label: "Last 7 days (hourly)", bucket: "hour", days: 7 },
  "30d": { label: "Last 30 days (daily)", bucket: "day", days: 30 },
  "90d": { label: "Last 90 days (daily)", bucket: "day", days: 90 },
};
const SPLITS: Record<string, string> = {
  "": "No split",
  domain: "Sender domain",
  category: "Category",
  tag: "Tag",
};
const COUNTS = ["sent", "delivered", "bounced", "complained", "failed", "deferred"] as const;
const LABELS: Record<(typeof COUNTS)[number], string> = {
  sent: "Sent",
  delivered: "Delivered",
  bounced: "Bounced",
  complained: "Complained",
  failed: "Failed",
  deferred: "Deferred",
};

const percent = (rate: number | null | undefined, digits = 1) =>
  rate === null || rate === undefined ? "—" : `${(rate * 100).toFixed(digits)} %`;

/** A latency as people read it: milliseconds, seconds, minutes or hours. */
function duration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function stat(name: string, label: string, value: string): HTMLElement {
  return h("div", { class: "stat", "data-stat": name }, h("span", {}, label), h("strong", {}, value));
}

function cards(t: Figures): HTMLElement {
  return h(
    "div",
    { class: "stats", id: "overview-totals" },
    COUNTS.map((c) => stat(c, LABELS[c], t[c].toLocaleString())),
    stat("deliveryRate", "Delivery rate", percent(t.deliveryRate)),
    stat("p50", "Accept → delivered p50", duration(t.latency.p50Ms)),
    stat("p99", "Accept → delivered p99", duration(t.latency.p99Ms)),
  );
}

function charts(stats: Stats): HTMLElement[] {
  const labels = stats.series.map((p) => {
    const at = new Date(p.start);
    return stats.bucket === "hour"
      ? at.toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" })
      : at.toLocaleDateString([], { timeZone: "UTC", month: "short", day: "numeric" });
  });
  const volume: Series[] = COUNTS.map((c) => ({
    name: LABELS[c],
    key: `s-${c}`,
    values: stats.series.map((p) => p[c]),
    summary: stats.totals[c].toLocaleString(),
  }));
  const latency: Series[] = (["p50Ms", "p99Ms"] as const).map((q) => ({
    name: q === "p50Ms" ? "p50" : "p99",
    key: `s-${q}`,
    values: stats.series.map((p) => p.latency[q]),
    summary: duration(stats.totals.latency[q]),
  }));
  return [
    lineChart({
      id: "chart-volume",
      title: "Emails",
      labels,
      series: volume,
      format: (v) => v.toLocaleString(),
    }),
    lineChart({
      id: "chart-latency",
      title: "Accept → delivered",
      labels,
      series: latency,
      format: duration,
    }),
  ];
}

function split(stats: Stats, by: string): HTMLElement {
  if (stats.groups.length === 0) return h("p", { class: "empty" }, "No mail in this period.");
  const widest = Math.max(1, ...stats.groups.map((g) => g.sent));
  return table(
    [SPLITS[by] ?? by, ...COUNTS.map((c) => LABELS[c]), "Delivery rate", "p50", "p99"],
    stats.groups.map((g) => [
      h("span", { class: "split-value" }, g.value || "(none)", shareBar(g.sent / widest)),
      ...COUNTS.map((c) => g[c].toLocaleString()),
      percent(g.deliveryRate),
      duration(g.latency.p50Ms),
      duration(g.latency.p99Ms),
    ]),
    { id: "overview-split" },
  );
}

function reputation(account: Account): HTMLElement[] {
  const t = account.reputation.thresholds;
  const state = account.paused
    ? h(
        "p",
        { id: "overview-state" },
        badge("paused"),
        " Sending is paused since ",
        time(account.paused.at),
        account.paused.reason ? ` (${account.paused.reason})` : "",
        ". Accepted mail is held until the account is resumed.",
      )
    : h("p", { id: "overview-state" }, badge("active"), " Sending is active.");
  const rates = account.reputation.rates;
  return [
    h("h2", {}, "Reputation"),
    state,
    rates.length === 0
      ? h("p", { class: "empty" }, "No rates yet: the guard counts mail a minute or two after it leaves.")
      : table(
          ["Window", "Domain", "Sent", "Bounce rate", "Complaint rate", "Level"],
          rates.map((r) => [
            r.windowHours === 24 ? "24 hours" : "7 days",
            r.domain || "whole account",
            r.sent.toLocaleString(),
            percent(r.bounceRate, 2),
            percent(r.complaintRate, 3),
            badge(r.level),
          ]),
          { id: "overview-reputation" },
        ),
    h(
      "p",
      { class: "muted" },
      `Warn at ${percent(t.warnBounceRate, 2)} bounces or ${percent(t.warnComplaintRate, 3)} complaints, pause at ` +
        `${percent(t.pauseBounceRate, 2)} or ${percent(t.pauseComplaintRate, 3)}, from ${t.minimumVolume} emails sent. `,
      "Rates computed ",
      time(account.reputation.computedAt),
      ".",
    ),
  ];
}

/**
 * The console's first page (issue 33): the account's figures over a chosen period (`#/overview/<period>/<split>`),
 * charts per bucket, a split by sender domain, category or tag, and the reputation the guard judges it by.
 */
export async function overviewView(ctx: ViewContext, outlet: HTMLElement, params: string[]): Promise<void> {
  const period = PERIODS[params[0] ?? ""] ? (params[0] as string) : "24h";
  const by = params[1] && SPLITS[params[1]] ? params[1] : "";
  const chosen = PERIODS[period] ?? { label: "", bucket: "hour", days: 1 };
  const select = (id: string, label: string, options: Record<string, string>, value: string) => {
    const element = h(
      "select",
      { id },
      Object.entries(options).map(([v, text]) => h("option", { value: v, selected: v === value }, text)),
    );
    element.addEventListener("change", () => {
      const p = (document.getElementById("overview-period") as HTMLSelectElement).value;
      const s = (document.getElementById("overview-by") as HTMLSelectElement).value;
      location.hash = `#/overview/${p}${s ? `/${s}` : ""}`;
    });
    return h("label", { class: "field" }, label, element);
  };
  const periodLabels = Object.fromEntries(Object.entries(PERIODS).map(([k, p]) => [k, p.label]));
  const controls = h(
    "div",
    { class: "filters" },
    select("overview-period", "Period", periodLabels, period),
    select("overview-by", "Split by", SPLITS, by),
  );
  const body = h("div", { id: "overview", "aria-live": "polite" });
  const load = async () => {
    // Whole UTC buckets ending with the current one: 24 hours, 7 × 24 hours, 30 or 90 days of points.
    const size = chosen.bucket === "hour" ? 3_600_000 : 86_400_000;
    const current = Math.floor(Date.now() / size) * size;
    const from = new Date(current + size - chosen.days * 86_400_000).toISOString();
    const [stats, account] = await Promise.all([
      ctx.api.get<Stats>(`/v1/stats${query({ from, bucket: chosen.bucket, by: by || undefined })}`),
      ctx.api.get<Account>("/v1/account"),
    ]);
    if (!ctx.current()) return;
    show(
      body,
      cards(stats.totals),
      charts(stats),
      by ? [h("h2", {}, `By ${(SPLITS[by] ?? by).toLowerCase()}`), split(stats, by)] : null,
      reputation(account),
    );
  };
  show(outlet, h("h1", {}, "Overview"), controls, body);
  await load();
  ctx.every(60_000, load);
}
