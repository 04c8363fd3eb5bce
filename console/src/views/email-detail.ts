import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { actionButton, badge, bytes, facts, h, show, table, time } from "../dom.ts";
import { download } from "../download.ts";
import { emailHtmlPanel } from "../email-frame.ts";
import { readableDetail } from "../readable.ts";
import { tabs } from "../tabs.ts";
import type { EmailSummary } from "./emails.ts";

interface EmailDetail extends EmailSummary {
  cc: string[];
  bcc: string[];
  replyTo: string[];
  messageIdHeader: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: Array<{ filename: string; contentType: string; contentId: string | null; size: number }>;
  recipients: Array<{ address: string; status: string; code: number | null; response: string | null }>;
  events: Array<{ type: string; at: string; detail: Record<string, unknown> }>;
}

/**
 * An attempt's TLS sessions (`detail.tls`, ADR 0058) as their readable lines, one per session, in place of
 * the objects they come with.
 */
function withTlsLines(detail: Record<string, unknown>): Record<string, unknown> {
  const tls = detail.tls;
  if (!Array.isArray(tls)) return detail;
  const lines = tls.map((entry) => (entry as { text?: unknown }).text);
  return lines.every((line) => typeof line === "string") ? { ...detail, tls: lines } : detail;
}

function scheduleControls(
  ctx: ViewContext,
  email: EmailDetail,
  reload: () => Promise<void>,
): HTMLElement | null {
  if (email.status !== "scheduled" && email.status !== "queued" && email.status !== "deferred") return null;
  const when = h("input", { type: "datetime-local", id: "reschedule-at", "aria-label": "New time" });
  return h(
    "div",
    { class: "actions" },
    actionButton(
      "Cancel email",
      async () => {
        await ctx.api.post(`/v1/emails/${seg(email.id)}/cancel`);
        await reload();
      },
      { class: "danger", id: "cancel-email" },
    ),
    email.status === "scheduled"
      ? h(
          "span",
          { class: "inline-form" },
          when,
          actionButton(
            "Reschedule",
            async () => {
              const at = new Date(when.value);
              if (Number.isNaN(at.getTime())) throw new Error("Pick a new date and time first.");
              await ctx.api.patch(`/v1/emails/${seg(email.id)}`, { scheduledAt: at.toISOString() });
              await reload();
            },
            { id: "reschedule" },
          ),
        )
      : null,
  );
}

/** One email: status, per-recipient SMTP replies, timeline, then its HTML (sandboxed), text, headers and files. */
export async function emailDetailView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [id = ""]: string[],
): Promise<void> {
  const reload = async () => {
    const base = `/v1/emails/${seg(id)}`;
    const email = await ctx.api.get<EmailDetail>(base);
    if (!ctx.current()) return;
    show(
      outlet,
      h("p", {}, h("a", { href: "#/emails" }, "← Emails")),
      h("h1", { class: "email-subject" }, email.subject || "(no subject)"),
      h(
        "p",
        {},
        badge(email.status),
        email.failureReason ? h("span", { class: "muted" }, ` ${email.failureReason}`) : null,
      ),
      scheduleControls(ctx, email, reload),
      // Any email, from either door: the message as built for delivery, without its DKIM signature (ADR 0071).
      h(
        "p",
        {},
        actionButton("Download .eml", () => download(ctx, `${base}/raw`, `${email.id}.eml`)),
      ),
      facts([
        ["From", email.from],
        ["To", email.to.join(", ")],
        ["Cc", email.cc.join(", ")],
        ["Bcc", email.bcc.join(", ")],
        ["Reply-To", email.replyTo.join(", ")],
        ["Category", email.category],
        ["Tags", email.tags.map((t) => `${t.name}:${t.value}`).join(", ")],
        ["Created", time(email.createdAt)],
        ["Scheduled", email.scheduledAt ? time(email.scheduledAt) : null],
        ["Attempts", String(email.attempts)],
        ["Message-ID", email.messageIdHeader],
        ["Email id", email.id],
      ]),
      h("h2", {}, "Recipients"),
      email.recipients.length === 0
        ? h("p", { class: "muted" }, "No delivery attempt yet.")
        : table(
            ["Recipient", "Result", "Code", "SMTP reply"],
            email.recipients.map((r) => [
              r.address,
              badge(r.status),
              r.code === null ? "—" : String(r.code),
              h("code", {}, r.response ?? ""),
            ]),
            { class: "recipients" },
          ),
      h("h2", {}, "Timeline"),
      h(
        "ol",
        { class: "timeline", id: "timeline" },
        email.events.map((e) =>
          h(
            "li",
            {},
            time(e.at),
            " ",
            h("strong", {}, e.type),
            Object.keys(e.detail).length > 0 ? h("pre", {}, readableDetail(withTlsLines(e.detail))) : null,
          ),
        ),
      ),
      h("h2", {}, "Content"),
      tabs([
        ...(email.html !== null
          ? [
              {
                id: "html",
                label: "HTML",
                render: () =>
                  emailHtmlPanel(email.html ?? "", {
                    parts: email.attachments,
                    fetchPart: (i) => ctx.api.blob(`${base}/attachments/${i}`),
                  }),
              },
            ]
          : []),
        ...(email.text !== null
          ? [{ id: "text", label: "Text", render: () => h("pre", { class: "text-part" }, email.text) }]
          : []),
        {
          id: "headers",
          label: "Headers",
          render: () =>
            table(
              ["Header", "Value"],
              Object.entries(email.headers).map(([k, v]) => [k, v]),
            ),
        },
        {
          id: "attachments",
          label: `Attachments (${email.attachments.length})`,
          render: () =>
            email.attachments.length === 0
              ? h("p", { class: "muted" }, "No attachments.")
              : table(
                  ["Name", "Type", "Size", "Download"],
                  email.attachments.map((a, i) => [
                    a.filename,
                    a.contentType,
                    bytes(a.size),
                    actionButton("Download", () => download(ctx, `${base}/attachments/${i}`, a.filename)),
                  ]),
                ),
        },
      ]),
    );
  };
  await reload();
}
