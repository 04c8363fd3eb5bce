import type { SMTPServer, SMTPServerSession } from "smtp-server";

/** An SMTP refusal: the reply code, its enhanced status code (RFC 3463) and text for the client. */
export interface SmtpRefusal extends Error {
  responseCode: number;
}

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;

/** Builds the error an smtp-server handler passes to its callback to refuse with exactly this reply. */
export function refusal(code: number, enhanced: string, text: string): SmtpRefusal {
  return Object.assign(new Error(`${enhanced} ${text}`), { responseCode: code });
}

/**
 * smtp-server picks the enhanced status code of a handler's error from its reply code alone (451 is always
 * 4.3.0, 552 always 5.2.2), while the same code means different things here (451 4.7.1 rate limit, 451 4.3.0
 * database down). For the session's connection, a reply whose text already starts with an enhanced code
 * (see `refusal`) is sent as it is; every other reply keeps the library's code. Call from `onConnect`.
 */
export function keepOwnEnhancedCodes(server: SMTPServer, session: SMTPServerSession): void {
  for (const connection of server.connections) {
    if (connection.session !== session) continue;
    const send = connection.send.bind(connection);
    connection.send = (code, data, context) =>
      send(code, data, typeof data === "string" && ENHANCED.test(data) ? false : context);
  }
}

/**
 * Postfix's `smtpd_tls_auth_only` for the session's connection: before STARTTLS the EHLO reply lists no AUTH,
 * so a client that would log in without TLS (swaks `--auth` without `-tls`, `smtplib.login()` without
 * `starttls()`) stops before it sends the key, instead of sending it in clear and then reading 538. (AUTH
 * itself still answers 538 before TLS.) smtp-server has no option for it. Call from `onConnect`.
 */
export function hideAuthBeforeTls(server: SMTPServer, session: SMTPServerSession): void {
  for (const connection of server.connections) {
    if (connection.session !== session) continue;
    const send = connection.send.bind(connection);
    connection.send = (code, data, context) =>
      send(
        code,
        code === 250 && Array.isArray(data) && !connection.secure
          ? data.filter((line) => !/^AUTH\b/i.test(String(line)))
          : data,
        context,
      );
  }
}
