import { seg } from "../api.ts";
import type { ViewContext } from "../context.ts";
import { actionButton, bytes, facts, h, show, table, time } from "../dom.ts";
import { download } from "../download.ts";
import { emailHtmlPanel } from "../email-frame.ts";
import { tabs } from "../tabs.ts";

interface InboxSummary {
  id: string;
  from: string;
  to: string[];
  subject: string;
  date: string | null;
  receivedAt: string;
  size: number;
}

interface InboxMessage extends InboxSummary {
  html: string | null;
  text: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: Array<{
    index: number;
    filename: string;
    contentType: string;
    contentId: string | null;
    size: number;
  }>;
}

/** The account's captured mail (sandbox keys and accounts; all of it in `mailroom run`), newest first,
 * refreshed every two seconds as mail arrives. */
export async function inboxView(ctx: ViewContext, outlet: HTMLElement): Promise<void> {
  const list = h("div", { id: "inbox-list", "aria-live": "polite" });
  let shown: string | null = null;
  const load = async () => {
    const { data } = await ctx.api.get<{ data: InboxSummary[] }>("/v1/dev-inbox/messages?limit=100");
    const signature = data.map((m) => m.id).join();
    if (!ctx.current() || signature === shown) return;
    shown = signature;
    show(
      list,
      data.length === 0
        ? h(
            "p",
            { class: "empty" },
            "No mail captured yet. Mail sent with a sandbox key or by a sandbox account lands here " +
              "(in a local run, all mail does).",
          )
        : table(
            ["Subject", "To", "From", "Received", "Size"],
            data.map((m) => [
              h("a", { href: `#/inbox/${seg(m.id)}`, class: "subject" }, m.subject || "(no subject)"),
              m.to.join(", "),
              m.from,
              time(m.receivedAt),
              bytes(m.size),
            ]),
            { class: "inbox" },
          ),
    );
  };
  show(
    outlet,
    h(
      "div",
      { class: "title-row" },
      h("h1", {}, "Dev inbox"),
      actionButton(
        "Delete all",
        async () => {
          if (!confirm("Delete every captured message?")) return;
          await ctx.api.delete("/v1/dev-inbox/messages");
          await load();
        },
        { class: "danger", id: "delete-all" },
      ),
    ),
    h(
      "p",
      { class: "muted" },
      "Mail this account sent in sandbox mode (or a local run delivered), captured instead of sent. " +
        "Nothing here left Mailroom.",
    ),
    list,
  );
  await load();
  ctx.every(2000, () => load().catch(() => {}));
}

export async function inboxMessageView(
  ctx: ViewContext,
  outlet: HTMLElement,
  [id = ""]: string[],
): Promise<void> {
  const m = await ctx.api.get<InboxMessage>(`/v1/dev-inbox/messages/${seg(id)}`);
  if (!ctx.current()) return;
  const base = `/v1/dev-inbox/messages/${seg(m.id)}`;
  const raw = h("pre", { class: "raw", id: "raw-message" }, "Loading…");
  show(
    outlet,
    h("p", {}, h("a", { href: "#/inbox" }, "← Dev inbox")),
    h("h1", { class: "email-subject" }, m.subject || "(no subject)"),
    facts([
      ["From", m.from],
      ["To", m.to.join(", ")],
      ["Date", time(m.date)],
      ["Received", time(m.receivedAt)],
      ["Size", bytes(m.size)],
    ]),
    h(
      "div",
      { class: "actions" },
      actionButton("Download .eml", () => download(ctx, `${base}/raw`, `${m.id}.eml`)),
    ),
    tabs([
      ...(m.html !== null
        ? [
            {
              id: "html",
              label: "HTML",
              render: () =>
                emailHtmlPanel(m.html ?? "", {
                  parts: m.attachments,
                  fetchPart: (i) => ctx.api.blob(`${base}/attachments/${i}`),
                }),
            },
          ]
        : []),
      ...(m.text !== null
        ? [{ id: "text", label: "Text", render: () => h("pre", { class: "text-part" }, m.text) }]
        : []),
      {
        id: "raw",
        label: "Raw",
        render: () => {
          ctx.api
            .blob(`${base}/raw`)
            .then((b) => b.text())
            .then(
              (text) => {
                raw.textContent = text;
              },
              (error: unknown) => {
                raw.textContent = String(error);
              },
            );
          return raw;
        },
      },
      {
        id: "headers",
        label: "Headers",
        render: () =>
          table(
            ["Header", "Value"],
            m.headers.map((x) => [x.name, x.value]),
          ),
      },
      {
        id: "attachments",
        label: `Attachments (${m.attachments.length})`,
        render: () =>
          m.attachments.length === 0
            ? h("p", { class: "muted" }, "No attachments.")
            : table(
                ["Name", "Type", "Size", ""],
                m.attachments.map((a) => [
                  a.filename,
                  a.contentType,
                  bytes(a.size),
                  actionButton("Download", () => download(ctx, `${base}/attachments/${a.index}`, a.filename)),
                ]),
                { class: "attachments" },
              ),
      },
    ]),
  );
}
