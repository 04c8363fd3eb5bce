import { setTimeout as sleep } from "node:timers/promises";
import { MAX_RECIPIENTS, parseAddress } from "@mailroom/core/emails";
import { isMailroomError } from "@mailroom/core/errors";
import {
  authenticateKey,
  createKeyChecker,
  createRequestAuthenticator,
  recordSmtpAuthFailures,
  requireScope,
  touchKeyLastUsed,
} from "@mailroom/core/keys";
import { createEmailSender } from "@mailroom/core/sending";
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import type { SmtpDeps } from "../deps.ts";
import { hideAuthBeforeTls, keepOwnEnhancedCodes, refusal } from "../server/replies.ts";
import { type AuthThrottle, createAuthThrottle, DEFAULT_AUTH_THROTTLE } from "./auth-throttle.ts";
import { acceptSubmission } from "./data.ts";
import type { SubmissionUser } from "./user.ts";

const userOf = (session: SMTPServerSession) => session.user as SubmissionUser;

/** A non-ASCII address in a transaction whose MAIL FROM did not declare SMTPUTF8 (RFC 6531 §3.4). */
const needsSmtpUtf8 = (address: string, session: SMTPServerSession) =>
  /[\u0080-\uffff]/.test(address) && session.envelope.smtpUtf8 !== true;
const UTF8_UNDECLARED = () =>
  refusal(553, "5.6.7", "A non-ASCII address needs MAIL FROM:<…> SMTPUTF8 (RFC 6531)");

// The key id a password names (`mrk_<keyId>_<secret>`), safe to keep; anything else counts as no key.
const KEY_ID = /^mrk_([A-Za-z0-9]{12})_/;

const INVALID = () => refusal(535, "5.7.8", "Authentication credentials invalid");

/** The handlers both submission ports share: AUTH with an API key, per-message key and rate checks, DATA. */
function submissionHandlers(deps: SmtpDeps, throttle: AuthThrottle, servers: () => SMTPServer[]) {
  const { pool, metrics, logger } = deps;
  const sender = createEmailSender({
    pool,
    hostname: deps.config.smtp.hostname,
    allowUnverifiedFrom: deps.config.sending.allowUnverifiedFrom,
    simulatorDomain: deps.config.simulator.domain,
    onAccepted: (r) => metrics.emailsAccepted.inc({ result: r.status }),
  });
  const now = deps.now ?? (() => new Date());
  const countingAuthenticator = createRequestAuthenticator(pool, deps.config.limits.rateLimit);
  const checkKey = createKeyChecker(pool);
  const refuse = (error: Error & { responseCode?: number }) => {
    metrics.smtpRefusals.inc({ code: String(error.responseCode ?? 550) });
    return error;
  };

  // The throttle has started slowing this address down: one audit row per address and window (ADR 0062).
  const auditThrottled = (peer: string, keyId: string, failures: number) =>
    recordSmtpAuthFailures(pool, { peer, keyId, failures }).catch((err: unknown) =>
      logger.warn({ err, peer }, "smtp AUTH failures could not be recorded in the audit trail"),
    );

  return {
    onConnect(session, callback) {
      for (const server of servers()) {
        keepOwnEnhancedCodes(server, session);
        hideAuthBeforeTls(server, session);
      }
      callback();
    },

    onAuth(auth, session, callback) {
      const peer = session.remoteAddress;
      // The username is ignored (ADR 0019): apps insist on one, and the key names its own account.
      const password = auth.password ?? "";
      const keyId = KEY_ID.exec(password)?.[1] ?? "";
      void (async () => {
        const turn = throttle.turn(peer, keyId);
        if ("refused" in turn) {
          metrics.smtpAuthFailures.inc({ reason: "blocked" });
          return callback(
            refuse(refusal(421, "4.7.0", "Too many failed logins from this address; try later")),
          );
        }
        if (turn.waitMs > 0) await sleep(turn.waitMs);
        const at = now();
        try {
          const key = await authenticateKey(pool, `Bearer ${password}`, at);
          throttle.succeed(peer, keyId);
          requireScope(key, "send");
          await touchKeyLastUsed(pool, key, at);
          logger.info({ keyId: key.keyId, account: key.account, peer }, "smtp session authenticated");
          callback(null, { user: { key: password, keyId: key.keyId, account: key.account } });
        } catch (error) {
          if (!isMailroomError(error)) {
            logger.warn({ err: error, peer }, "smtp AUTH could not reach the database");
            return callback(refuse(refusal(454, "4.7.0", "Temporary authentication failure; try again")));
          }
          if (error.code === "invalid_api_key" || error.code === "missing_api_key") {
            const throttled = throttle.fail(peer, keyId);
            if (throttled) await auditThrottled(peer, keyId, throttled);
            metrics.smtpAuthFailures.inc({ reason: "invalid" });
            return callback(refuse(INVALID()));
          }
          // The secret was proven: like the HTTP API, say what is wrong with the key (revoked, expired, scope).
          throttle.succeed(peer, keyId);
          callback(refuse(refusal(535, "5.7.8", `Authentication credentials invalid: ${error.message}`)));
        }
      })();
    },

    onMailFrom(address, session, callback) {
      void (async () => {
        if (address.address !== "" && !parseAddress(address.address)) {
          return callback(refuse(refusal(553, "5.1.7", "Bad sender address syntax")));
        }
        if (needsSmtpUtf8(address.address, session)) return callback(refuse(UTF8_UNDECLARED()));
        try {
          // Read from Postgres for every message: a revoke takes effect on the next MAIL FROM.
          const { rateLimit, account } = await countingAuthenticator(`Bearer ${userOf(session).key}`, now());
          // A paused account is told at once, before it sends the message (the use case refuses it too).
          if (account.sendingStatus === "paused") {
            return callback(
              refuse(
                refusal(451, "4.7.1", `Sending is paused for account ${account.account}; try again later`),
              ),
            );
          }
          if (rateLimit && !rateLimit.allowed) {
            return callback(
              refuse(
                refusal(
                  451,
                  "4.7.1",
                  `Rate limit: at most ${rateLimit.limit} messages per second; try again in ${rateLimit.resetSeconds} s`,
                ),
              ),
            );
          }
          callback();
        } catch (error) {
          if (isMailroomError(error)) {
            return callback(
              refuse(
                refusal(530, "5.7.0", `Authentication required: ${error.message} Log in with an active key.`),
              ),
            );
          }
          logger.warn({ err: error }, "smtp MAIL FROM could not reach the database");
          callback(refuse(refusal(451, "4.3.0", "Temporary local problem; try again later")));
        }
      })();
    },

    onRcptTo(address, session, callback) {
      if (!parseAddress(address.address)) {
        return callback(refuse(refusal(553, "5.1.3", "Bad recipient address syntax")));
      }
      if (needsSmtpUtf8(address.address, session)) return callback(refuse(UTF8_UNDECLARED()));
      callback();
    },

    onData(stream, session, callback) {
      acceptSubmission(deps, sender, checkKey, stream, session, userOf(session)).then(
        (reply) => callback(null, reply),
        (error: Error) => callback(refuse(error)),
      );
    },
  } satisfies Partial<SMTPServerOptions>;
}

export interface SubmissionServers {
  /** Port 587 style: plain until STARTTLS, which AUTH requires. */
  starttls: SMTPServer;
  /** Port 465 style: TLS from the first byte. */
  implicitTls: SMTPServer;
}

/**
 * The two submission servers (not yet listening). Both take AUTH PLAIN or LOGIN only over TLS, with an API
 * key of scope `send` as the password, and accept a message only once it is durable in Postgres.
 */
export function createSubmissionServers(deps: SmtpDeps): SubmissionServers {
  const throttle = createAuthThrottle(deps.authThrottle ?? DEFAULT_AUTH_THROTTLE);
  const servers: SMTPServer[] = [];
  const handlers = submissionHandlers(deps, throttle, () => servers);
  const common: SMTPServerOptions = {
    ...handlers,
    name: deps.config.smtp.hostname,
    banner: "Mailroom submission: AUTH with an API key (scope send) as the password",
    key: deps.tls.key,
    cert: deps.tls.cert,
    minVersion: "TLSv1.2",
    size: deps.config.api.bodyLimitBytes,
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: false,
    // Enhanced status codes (RFC 2034) are off by default in smtp-server; clients and operators read them.
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    // RFC 8689: offered in EHLO only once the session is TLS (smtp-server's rule); MAIL FROM:<…> REQUIRETLS
    // makes the email's requireTls, so it leaves only over verified TLS.
    hideREQUIRETLS: false,
    maxRecipients: MAX_RECIPIENTS,
    socketTimeout: deps.config.submission.timeoutSeconds * 1000,
    closeTimeout: 5_000,
    disableReverseLookup: true,
    logger: false,
  };
  const starttls = new SMTPServer({ ...common, secure: false });
  const implicitTls = new SMTPServer({ ...common, secure: true });
  for (const server of [starttls, implicitTls]) {
    // A client's socket error (reset, TLS garbage) is its own problem; unhandled it would end the process.
    server.on("error", (error: Error) => deps.logger.debug({ err: error }, "smtp connection error"));
    servers.push(server);
  }
  return { starttls, implicitTls };
}
