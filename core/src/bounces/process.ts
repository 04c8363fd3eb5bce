import type { Pool, PoolClient } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { bounceDomainServes } from "../domains/bounce-domains.ts";
import { appendEvents } from "../emails/events.ts";
import {
  findEmailByMessageId,
  hasRecipientEvent,
  lockReportedEmail,
  markRecipientBounced,
  type ReportedEmail,
} from "../emails/reported.ts";
import { addSuppressions } from "../suppressions/store.ts";
import { processDmarcReport } from "./dmarc.ts";
import type { ParsedReport } from "./parse.ts";
import { finishReport, lockReport, type StoredReport } from "./reports.ts";
import { parseVerpAddress, type VerpKey, verifyVerpToken } from "./verp.ts";

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
  | "not_the_reporter"
  | "reporter_unknown"
  | "not_delivered";

type Located =
  | { email: ReportedEmail; via: "verp" | "message_id"; recipient: string | undefined }
  | {
      email?: undefined;
      reason: "invalid_token" | "email_not_found" | "message_id_of_another_account";
    };

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/**
 * Finds (and locks) the email a report is about, and the recipient whose copy it reports when that can be
 * known. First by a VERP token (the envelope recipient, the original's Return-Path, ARF's Original-Mail-From):
 * only a token whose HMAC tag checks names an email, and a per-recipient tag names the one recipient whose
 * envelope carried it. Failing that, by the original Message-ID, which any recipient of the email could copy:
 * it counts only when the report came to a bounce domain of the email's own account, so nobody can reach
 * another account's email with it, and it names no recipient.
 */
async function locate(
  db: PoolClient,
  key: VerpKey,
  report: StoredReport,
  parsed: ParsedReport,
): Promise<Located> {
  const senders = parsed.kind === "unrecognised" ? [] : parsed.original.envelopeSenders;
  let sawToken = false;
  for (const address of [...report.rcptTo, ...senders]) {
    const token = parseVerpAddress(address);
    sawToken ||= /^<?bounce\+/i.test(address);
    if (!token) continue;
    const email = await lockReportedEmail(db, token.emailId);
    const verified = email && verifyVerpToken(key, token, email.recipients);
    if (email && verified) return { email, via: "verp", recipient: verified.recipient };
  }
  const messageId = parsed.kind === "unrecognised" ? undefined : parsed.original.messageId;
  const found = messageId ? await findEmailByMessageId(db, messageId) : undefined;
  if (found) {
    for (const domain of new Set(report.rcptTo.map(domainOf))) {
      if (await bounceDomainServes(db, domain, found.account)) {
        const email = await lockReportedEmail(db, found.id);
        if (!email) break;
        return { email, via: "message_id", recipient: undefined };
      }
    }
    return { reason: "message_id_of_another_account" };
  }
  return { reason: sawToken ? "invalid_token" : "email_not_found" };
}

/**
 * The one recipient a report may affect: the one its envelope's token names; failing that (a Message-ID
 * match, a token issued before issue 26), the email's only recipient, since with several any of them could
 * have sent it about the others (issue 26). Undefined: the report may affect nobody.
 */
function reporterOf(email: ReportedEmail, located: { recipient: string | undefined }): string | undefined {
  if (located.recipient !== undefined) return located.recipient;
  return email.recipients.length === 1 ? email.recipients[0] : undefined;
}

const smtpCode = (text: string | undefined) => {
  const match = text ? /^\s*([245]\d\d)\b/.exec(text) : null;
  return match ? Number(match[1]) : null;
};

async function applyBounce(
  client: PoolClient,
  email: ReportedEmail,
  reporter: string | undefined,
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
    } else if (r.recipient !== reporter) {
      // Another recipient's address: the report's envelope does not name it (a co-recipient's forgery).
      effects.push({ ...base, effect: reporter === undefined ? "reporter_unknown" : "not_the_reporter" });
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

/**
 * The recipient a complaint is about: the one its envelope names, whom the report's own recipient fields may
 * name too or leave out (feedback loops often redact them), but never contradict. The original's To header
 * is the same in every recipient's copy, so it says nothing about whose copy this was.
 */
function complainants(
  reporter: string | undefined,
  parsed: Extract<ParsedReport, { kind: "complaint" }>,
): string[] {
  if (reporter === undefined) return [];
  const named = parsed.recipients;
  return named.length === 0 || named.includes(reporter) ? [reporter] : [];
}

async function applyComplaint(
  client: PoolClient,
  email: ReportedEmail,
  reporter: string | undefined,
  parsed: Extract<ParsedReport, { kind: "complaint" }>,
) {
  const effects: { recipient: string | null; effect: RecipientEffect }[] = [];
  const recipients = complainants(reporter, parsed);
  if (recipients.length === 0) {
    effects.push({
      recipient: null,
      effect: reporter === undefined ? "reporter_unknown" : "not_the_reporter",
    });
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
  // DMARC aggregate reports come to the same bounce domains (the suggested record's `rua`).
  const { readDmarcReport } = await import("../domains/dmarc/index.ts");
  const dmarc = await readDmarcReport(rows[0].raw);
  if (dmarc) return processDmarcReport(deps.pool, reportId, dmarc);
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
    if (located.email === undefined) return finish("ignored", { ...summary, reason: located.reason });
    const { email } = located;
    const reporter = reporterOf(email, located);
    const effects =
      parsed.kind === "bounce"
        ? await applyBounce(client, email, reporter, parsed)
        : await applyComplaint(client, email, reporter, parsed);
    const changed = effects.some((e) => ["bounced", "delayed", "complained"].includes(e.effect));
    return finish(changed ? "processed" : "ignored", {
      ...summary,
      emailId: email.id,
      via: located.via,
      reporter: reporter ?? null,
      recipients: effects,
    });
  });
}
