import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { copyable } from "../copy.ts";
import { actionButton, badge, facts, h, show, table, time } from "../dom.ts";
import { checksSection, type DomainHealth, dmarcSection, rotationSection } from "./domain-health.ts";

interface DnsRecord {
  purpose: string;
  type: string;
  name: string;
  value: string;
  zoneFileLine: string;
  required: boolean;
  status: string;
  reason: string | null;
  lastCheckedAt: string | null;
}

interface Domain extends DomainHealth {
  id: string;
  name: string;
  status: string;
  statusReason: string | null;
  returnPathDomain: string;
  createdAt: string;
  lastCheckedAt: string | null;
  verifiedAt: string | null;
  nextCheckAt: string;
  records: DnsRecord[];
}

export async function domainsView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const { data } = await ctx.api.get<{ data: Domain[] }>("/v1/domains");
  if (!ctx.current()) return;
  const name = h("input", { id: "new-domain", placeholder: "mail.example.com", "aria-label": "Domain name" });
  show(
    outlet,
    h("h1", {}, "Domains"),
    data.length === 0
      ? h("p", { class: "empty" }, "No sending domain yet.")
      : table(
          ["Domain", "Status", "Last checked"],
          data.map((d) => [
            h("a", { href: `#/domains/${seg(d.name)}` }, d.name),
            badge(d.status),
            time(d.lastCheckedAt),
          ]),
          { class: "domains" },
        ),
    h(
      "div",
      { class: "inline-form" },
      name,
      actionButton("Add domain", async () => {
        const created = await ctx.api.post<Domain>("/v1/domains", { name: name.value.trim() });
        location.hash = `#/domains/${seg(created.name)}`;
      }),
    ),
  );
}

/**
 * One domain: the records to publish (with copy buttons), each record's status, and a recheck; its compliance
 * checks, DKIM rotation state and what receivers' DMARC reports say (domain-health.ts).
 */
export async function domainDetailView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [name = ""]: string[],
): Promise<void> {
  const render = (d: Domain) =>
    show(
      outlet,
      h("p", {}, h("a", { href: "#/domains" }, "← Domains")),
      h("h1", {}, d.name, " ", badge(d.status)),
      d.statusReason ? h("p", { class: "muted" }, d.statusReason) : null,
      h(
        "div",
        { class: "actions" },
        actionButton(
          "Recheck DNS now",
          async () => {
            const checked = await ctx.api.post<Domain>(`/v1/domains/${seg(d.name)}/verify`);
            if (ctx.current()) render(checked);
          },
          { id: "recheck" },
        ),
      ),
      facts([
        ["Return-Path domain", d.returnPathDomain],
        ["Created", time(d.createdAt)],
        ["Last checked", time(d.lastCheckedAt)],
        ["Verified", d.verifiedAt ? time(d.verifiedAt) : null],
        ["Next check", time(d.nextCheckAt)],
      ]),
      h("h2", {}, "DNS records to publish"),
      table(
        ["Purpose", "Type", "Name", "Value", "Status"],
        d.records.map((r) => [
          `${r.purpose}${r.required ? "" : " (advice)"}`,
          r.type,
          copyable(r.name, `${r.purpose} name`),
          copyable(r.value, `${r.purpose} value`),
          h("span", {}, badge(r.status), r.reason ? h("small", { class: "muted block" }, r.reason) : null),
        ]),
        { class: "records" },
      ),
      h(
        "details",
        {},
        h("summary", {}, "As a zone file"),
        copyable(d.records.map((r) => r.zoneFileLine).join("\n"), "zone file"),
      ),
      checksSection(d),
      rotationSection(d),
      dmarcSection(ctx, d),
    );
  const domain = await ctx.api.get<Domain>(`/v1/domains/${seg(name)}`);
  if (ctx.current()) render(domain);
}
