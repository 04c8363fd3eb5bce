import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { findBounceDomainOwner } from "../domains/bounce-domains.ts";
import { appendEvents } from "../emails/events.ts";
import {
  findEmailByMessageId,
  hasRecipientEvent,
  lockReportedEmail,
  markRecipientBounced,
  type ReportedEmail,
} from "../emails/reported.ts";
import { addSuppressions } from "../suppressions/store.ts";
import type { ParsedReport } from "./parse.ts";
import { finishReport, lockReport, type StoredReport } from "./reports.ts";
import { readVerpAddress, type VerpKey } from "./verp.ts";

export interface ReportDeps {
  pool: Pool;
  verpKey: VerpKey;
}

/** What a report did to one recipient. */
export type RecipientEffect =
  | "bounced"
  | "delayed"
  | "complained"
  | "none"
  | "duplicate"
  | "not_a_recipient"
  | "not_delivered";

type Located =
  | { emailId: string; via: "verp" | "message_id" }
  | { emailId?: undefined; reason: "invalid_token" | "email_not_found" | "message_id_of_another_account" };

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/**
 * Finds the email a report is about. First by a VERP token (the envelope recipient, the original's
 * Return-Path, ARF's Original-Mail-From): only a token whose HMAC tag checks names an email. Failing that,
 * by the original Message-ID, which any recipient of the email could copy: it counts only when the report
 * came to a bounce domain of the email's own account, so nobody can reach another account's email with it.
 */
async function locate(db: Queryable, key: VerpKey, report: StoredReport, parsed: ParsedReport) {
  const senders = parsed.kind === "unrecognised" ? [] : parsed.original.envelopeSenders;
  let sawToken = false;
  for (const address of [...report.rcptTo, ...senders]) {
    const id = readVerpAddress(key, address);
    if (id) return { emailId: id, via: "verp" } as Located;
    sawToken ||= /^<?bounce\+/i.test(address);
  }
  const messageId = parsed.kind === "unrecognised" ? undefined : parsed.original.messageId;
  const found = messageId ? await findEmailByMessageId(db, messageId) : undefined;
  if (found) {
    for (const domain of new Set(report.rcptTo.map(domainOf))) {
      if ((await findBounceDomainOwner(db, domain)) === found.account) {
        return { emailId: found.id, via: "message_id" } as Located;
      }
    }
    return { reason: "message_id_of_another_account" } as Located;
  }
  return { reason: sawToken ? "invalid_token" : "email_not_found" } as Located;
}

const smtpCode = (text: string | undefined) => {
  const match = text ? /^\s*([245]\d\d)\b/.exec(text) : null;
  return match ? Number(match[1]) : null;
};

async function applyBounce(
  client: PoolClient,
  email: ReportedEmail,
  parsed: Extract<ParsedReport, { kind: "bounce" }>,
) {
  const effects: {
    recipient: string;
    class: string;
    status?: string | undefined;
    effect: RecipientEffect;
  }[] = [];
  for (const r of parsed.recipients) {
    const base = { recipient: r.recipient, class: r.class, status: r.status };
    const detail = {
      recipient: r.recipient,
      status: r.status ?? null,
      response: r.diagnostic ?? r.status ?? r.action,
      remoteMta: r.remoteMta ?? null,
      reportingMta: parsed.reportingMta ?? null,
      format: parsed.format,
    };
    if (!email.recipients.includes(r.recipient)) {
      effects.push({ ...base, effect: "not_a_recipient" });
    } else if (r.class === "none") {
      effects.push({ ...base, effect: "none" });
    } else if (r.class === "soft") {
      // A delay or a temporary failure reported later: news for the timeline, no change of state.
      await appendEvents(client, email.account, [email.id], "delayed", detail);
      effects.push({ ...base, effect: "delayed" });
    } else {
      const previous = email.recipientResults[r.recipient]?.status;
      if (previous === "permanent") {
        effects.push({ ...base, effect: "duplicate" });
        continue;
      }
      if (previous !== "accepted") {
        effects.push({ ...base, effect: "not_delivered" });
        continue;
      }
      await markRecipientBounced(client, email, r.recipient, {
        code: smtpCode(r.diagnostic),
        response: detail.response,
      });
      await addSuppressions(client, email.account, [
        { address: r.recipient, reason: "hard_bounce", detail: detail.response, sourceEmailId: email.id },
      ]);
      await appendEvents(client, email.account, [email.id], "bounced", {
        ...detail,
        bounced: [r.recipient],
        later: true,
      });
      effects.push({ ...base, effect: "bounced" });
    }
  }
  return effects;
}

/** The recipients a complaint is about: those it names, else the only one, else the original's To. */
function complainants(email: ReportedEmail, parsed: Extract<ParsedReport, { kind: "complaint" }>): string[] {
  const named = parsed.recipients.length > 0 ? parsed.recipients : parsed.original.to;
  const ours = named.filter((r) => email.recipients.includes(r));
  if (ours.length > 0) return [...new Set(ours)];
  return parsed.recipients.length === 0 && email.recipients.length === 1 ? [...email.recipients] : [];
}

async function applyComplaint(
  client: PoolClient,
  email: ReportedEmail,
  parsed: Extract<ParsedReport, { kind: "complaint" }>,
) {
  const effects: { recipient: string | null; effect: RecipientEffect }[] = [];
  const recipients = complainants(email, parsed);
  if (recipients.length === 0) {
    effects.push({ recipient: null, effect: "not_a_recipient" });
    return effects;
  }
  for (const recipient of recipients) {
    if (await hasRecipientEvent(client, email.id, "complained", recipient)) {
      effects.push({ recipient, effect: "duplicate" });
      continue;
    }
    const detail = {
      recipient,
      feedbackType: parsed.feedbackType,
      userAgent: parsed.userAgent ?? null,
    };
    await addSuppressions(client, email.account, [
      {
        address: recipient,
        reason: "complaint",
        detail: `feedback-type ${parsed.feedbackType}`,
        sourceEmailId: email.id,
      },
    ]);
    // The timeline event and its `email.complained` webhook event, written together.
    await appendEvents(client, email.account, [email.id], "complained", detail);
    effects.push({ recipient, effect: "complained" });
  }
  return effects;
}

/**
 * Processes one stored report: parses it, finds the email it is about, applies its effects and records the
 * outcome, all in one transaction with the report and the email locked, so a retried job or a repeated
 * report changes nothing twice. A hard bounce of a recipient the next hop had accepted marks it bounced
 * (the email too once nobody is left accepted), suppresses the address (`hard_bounce`) and emits
 * `email.bounced`; a soft one is a `delayed` timeline event; a complaint suppresses the address
 * (`complaint`), records `complained` and emits `email.complained`. Returns the outcome, or undefined when
 * the report is gone or was already processed.
 */
export async function processReport(deps: ReportDeps, reportId: string) {
  const { rows } = await deps.pool.query<{ raw: Buffer; rcpt_to: string[] }>(
    `select raw, rcpt_to from inbound_reports where id = $1 and status = 'received'`,
    [reportId],
  );
  if (!rows[0]) return undefined;
  // Loaded on use: mailparser is large, and every program that imports this package (the CLI's key
  // commands, the worker at start) would otherwise pay for it.
  const { parseReport } = await import("./parse.ts");
  const parsed = await parseReport(rows[0].raw);
  return withTransaction(deps.pool, async (client) => {
    const report = await lockReport(client, reportId);
    if (!report) return undefined;
    const finish = async (status: "processed" | "ignored", outcome: Record<string, unknown>) => {
      await finishReport(client, reportId, status, outcome);
      return { status, outcome };
    };
    if (parsed.kind === "unrecognised")
      return finish("ignored", { kind: "unrecognised", reason: parsed.reason });
    const summary = { kind: parsed.kind, ...(parsed.kind === "bounce" ? { format: parsed.format } : {}) };
    const located = await locate(client, deps.verpKey, report, parsed);
    if (located.emailId === undefined) return finish("ignored", { ...summary, reason: located.reason });
    const email = await lockReportedEmail(client, located.emailId);
    if (!email) return finish("ignored", { ...summary, reason: "email_not_found" });
    const effects =
      parsed.kind === "bounce"
        ? await applyBounce(client, email, parsed)
        : await applyComplaint(client, email, parsed);
    const changed = effects.some((e) => ["bounced", "delayed", "complained"].includes(e.effect));
    return finish(changed ? "processed" : "ignored", {
      ...summary,
      emailId: email.id,
      via: located.via,
      recipients: effects,
    });
  });
}
