import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { badge, type Child, facts, h, table, time } from "../dom.ts";

/** The parts of a domain this module shows (issue 29): its checks and its DKIM rotation. */
export interface DomainHealth {
  name: string;
  checks: { name: string; status: string; reason: string; checkedAt: string; since: string }[];
  dkimKeys: {
    selector: string;
    algorithm: string;
    state: string;
    createdAt: string;
    servedAt?: string | null;
    activatedAt?: string | null;
    withdrawAt?: string | null;
  }[];
  dkimRotation: { intervalDays: number; nextRotationAt: string | null; requestedAt: string | null };
}

interface DmarcSource {
  sourceIp: string;
  messages: number;
  passed: number;
  dkimAligned: number;
  spfAligned: number;
  passRate: number;
  reporters: string[];
  lastSeen: string;
}

interface Dmarc {
  reportAddress: string;
  from: string;
  to: string;
  reports: number;
  messages: number;
  passed: number;
  passRate: number | null;
  sources: DmarcSource[];
  failingSources: DmarcSource[];
}

const percent = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(1)} %`);

/** Compliance checks: what receivers will judge, each with its verdict and why. */
export function checksSection(d: DomainHealth): Child[] {
  return [
    h("h2", {}, "Compliance checks"),
    d.checks.length === 0
      ? h("p", { class: "empty" }, "Not checked yet: the checks run at each verification.")
      : table(
          ["Check", "Status", "Reason", "Checked", "Since"],
          d.checks.map((c) => [c.name, badge(c.status), c.reason, time(c.checkedAt), time(c.since)]),
          { class: "checks" },
        ),
  ];
}

/** DKIM keys by rotation state, with their dates, and when the next rotation starts. */
export function rotationSection(d: DomainHealth): Child[] {
  const interval = d.dkimRotation.intervalDays;
  return [
    h("h2", {}, "DKIM rotation"),
    facts([
      ["Rotation interval", interval === 0 ? "off" : `${interval} days`],
      ["Next rotation", d.dkimRotation.nextRotationAt ? time(d.dkimRotation.nextRotationAt) : null],
      ["Rotation requested", d.dkimRotation.requestedAt ? time(d.dkimRotation.requestedAt) : null],
    ]),
    table(
      ["Selector", "Algorithm", "State", "Created", "Served by DNS", "Signing since", "Withdrawn at"],
      d.dkimKeys.map((k) => [
        h("code", {}, k.selector),
        k.algorithm,
        badge(k.state),
        time(k.createdAt),
        time(k.servedAt),
        time(k.activatedAt),
        time(k.withdrawAt),
      ]),
      { class: "dkim-keys" },
    ),
  ];
}

const sourceRows = (sources: DmarcSource[]) =>
  sources.map((s) => [
    h("code", {}, s.sourceIp),
    String(s.messages),
    String(s.messages - s.passed),
    percent(s.passRate),
    `${s.dkimAligned} / ${s.spfAligned}`,
    s.reporters.join(", "),
    s.lastSeen,
  ]);
const SOURCE_HEADINGS = [
  "Source IP",
  "Messages",
  "Failed",
  "Pass rate",
  "DKIM / SPF aligned",
  "Reporters",
  "Last day",
];

/**
 * What receivers' DMARC aggregate reports say (GET /v1/domains/{domain}/dmarc): the pass rate over 30 days
 * and the sources that fail (a spoofer, a forgotten sender), then every source. Filled in when it answers.
 */
export function dmarcSection(ctx: ViewContext, d: DomainHealth): HTMLElement {
  const section = h(
    "section",
    { class: "dmarc" },
    h("h2", {}, "DMARC reports"),
    h("p", { class: "muted" }, "Loading…"),
  );
  ctx.api.get<Dmarc>(`/v1/domains/${seg(d.name)}/dmarc?days=30`).then(
    (r) => {
      if (!ctx.current()) return;
      section.replaceChildren(
        h("h2", {}, "DMARC reports"),
        facts([
          ["Period", `${r.from} – ${r.to}`],
          ["Reports", String(r.reports)],
          ["Messages", String(r.messages)],
          ["DMARC pass rate", h("strong", { class: "dmarc-pass-rate" }, percent(r.passRate))],
          ["Reports go to", h("code", {}, r.reportAddress)],
        ]),
        h("h3", {}, "Failing sources"),
        r.failingSources.length === 0
          ? h("p", { class: "empty" }, "No source failed DMARC.")
          : table(SOURCE_HEADINGS, sourceRows(r.failingSources), { class: "dmarc-failing" }),
        h("h3", {}, "All sources"),
        r.sources.length === 0
          ? h("p", { class: "empty" }, "No report received for this period.")
          : table(SOURCE_HEADINGS, sourceRows(r.sources), { class: "dmarc-sources" }),
      );
    },
    (error: unknown) => {
      if (ctx.current())
        section.replaceChildren(h("h2", {}, "DMARC reports"), h("p", { class: "error" }, String(error)));
    },
  );
  return section;
}
