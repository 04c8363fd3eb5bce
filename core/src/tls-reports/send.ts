import type { Pool, PoolClient } from "../db/pool.ts";
import { createSenderAuthorizer } from "../domains/authorize.ts";
import type { LookupTxt } from "../domains/verify.ts";
import { acceptEmails } from "../emails/accept.ts";
import { normalizeSubmittedMessage } from "../emails/submitted-message.ts";
import { capturesMail } from "../sandbox/decide.ts";
import type { SsrfGuard } from "../webhooks/ssrf.ts";
import { composeReportMail, gzipReport } from "./message.ts";
import { postReport } from "./post.ts";
import { buildTlsReport, loadSessionCounts, type Reporter, reportIdOf } from "./report.ts";
import { lookupRua, parseReportUri } from "./rua.ts";
import {
  findDueReports,
  findPendingSends,
  type PendingSend,
  purgeTlsReportData,
  type SendResult,
  saveReport,
  withPendingSend,
} from "./store.ts";

/** The reporting sender (`config.tlsReports`): the From address and the key whose account sends. */
export interface ReportingSender extends Reporter {
  from: string;
  keyId: string;
}

export interface TlsReportDeps {
  pool: Pool;
  lookupTxt: LookupTxt;
  /** The webhooks' SSRF guard (and its allowed CIDRs) for `https:` report URIs. */
  guard: SsrfGuard;
  sender: ReportingSender;
  /** MAILROOM_ALLOW_UNVERIFIED_FROM: the From domain need not be a verified domain of the account. */
  allowUnverifiedFrom: boolean;
  postTimeoutMs: number;
  /** Extra trusted CAs for `https:` receivers (tests). */
  ca?: string | Buffer | undefined;
}

export interface TlsReportRun {
  /** Reports made (policy domains with sessions that day and a `rua`). */
  made: number;
  /** Policy domains that publish no usable `_smtp._tls` record. */
  withoutRua: number;
  /** Lookups that failed (asked again next run). */
  lookupErrors: number;
  sent: number;
  failed: number;
}

// Days looked back: a worker down over midnight still reports the day it missed, within reason.
const LOOKBACK_DAYS = 3;

/**
 * The daily TLS reports (RFC 8460 §4, §5), run hourly by the `send_tls_reports` job: for each policy domain
 * with sessions on a finished UTC day, look up its `_smtp._tls` record and keep the day's report once (the
 * report id is the same on every run), then make every pending send: `https:` POSTed, `mailto:` accepted as an
 * email of the reporting key's account, which the delivery lane sends like any other. A send is marked sent
 * in the transaction that made it, so a rerun sends nothing twice; a failed one is tried on the next runs
 * (`MAX_SEND_ATTEMPTS`).
 */
export async function sendTlsReports(deps: TlsReportDeps, now = new Date()): Promise<TlsReportRun> {
  const run: TlsReportRun = { made: 0, withoutRua: 0, lookupErrors: 0, sent: 0, failed: 0 };
  for (const { policyDomain, day } of await findDueReports(deps.pool, now, LOOKBACK_DAYS)) {
    const found = await lookupRua(deps.lookupTxt, policyDomain);
    if (found.kind === "error") {
      run.lookupErrors += 1;
      continue;
    }
    const reportId = reportIdOf(day, policyDomain, deps.sender.submitter);
    if (found.kind === "none") {
      await saveReport(deps.pool, { policyDomain, day, reportId, rua: [] });
      run.withoutRua += 1;
      continue;
    }
    const counts = await loadSessionCounts(deps.pool, policyDomain, day);
    const report = buildTlsReport(deps.sender, policyDomain, day, counts);
    await saveReport(deps.pool, { policyDomain, day, reportId, rua: found.rua.map((u) => u.uri), report });
    run.made += 1;
  }
  const authorize = createSenderAuthorizer(deps.pool, { allowAny: deps.allowUnverifiedFrom, ttlMs: 0 });
  for (const pending of await findPendingSends(deps.pool, now, LOOKBACK_DAYS)) {
    const result = await withPendingSend(deps.pool, pending, (client) =>
      sendOne(deps, authorize, client, pending, now),
    );
    if (result) run[result.ok ? "sent" : "failed"] += 1;
  }
  await purgeTlsReportData(deps.pool, now);
  return run;
}

async function sendOne(
  deps: TlsReportDeps,
  authorize: ReturnType<typeof createSenderAuthorizer>,
  client: PoolClient,
  pending: PendingSend,
  now: Date,
): Promise<SendResult> {
  const uri = parseReportUri(pending.rua);
  if (!uri) return { ok: false, error: "not a report URI we send to" };
  if (uri.kind === "https") {
    return postReport(uri.uri, gzipReport(pending.report), {
      guard: deps.guard,
      timeoutMs: deps.postTimeoutMs,
      ca: deps.ca,
    });
  }
  const { sender } = deps;
  const { rows } = await client.query<{ account: string; mode: "live" | "sandbox"; sandbox: boolean }>(
    `select k.account, k.mode, a.sandbox from api_keys k join accounts a using (account)
     where k.key_id = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
    [sender.keyId],
  );
  const key = rows[0];
  if (!key) return { ok: false, error: `the reporting key ${sender.keyId} is missing, revoked or expired` };
  const { account } = key;
  await authorize(account, sender.from);
  const message = composeReportMail({
    from: sender.from,
    to: uri.address,
    policyDomain: pending.policyDomain,
    submitter: sender.submitter,
    report: pending.report,
    now,
  });
  const item = normalizeSubmittedMessage({ mailFrom: sender.from, recipients: [uri.address], message });
  const [accepted] = await acceptEmails(client, { hostname: sender.submitter }, [
    // A sandbox key or account captures its reports as it captures any of its mail (ADR 0047). Receivers'
    // TLS policies do not hold a report back (RFC 8460 §5.3): this flag has no API or SMTP input.
    {
      ...item,
      account,
      apiKeyId: sender.keyId,
      source: "smtp",
      sandbox: capturesMail(key, key),
      tlsReport: true,
    },
  ]);
  if (!accepted || accepted.status === "idempotency_key_mismatch")
    return { ok: false, error: "an earlier report email with this Message-ID differs" };
  return { ok: true, emailId: accepted.messageId };
}
