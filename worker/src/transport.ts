import nodemailer from "nodemailer";

export type Transporter = ReturnType<typeof createSmtpTransport>;

/**
 * The SMTP transport named by a URL (`smtp://host:port`, `smtps://user:pass@host:465`), pooled so that
 * concurrent deliveries reuse connections. STARTTLS is used when the server offers it.
 */
export function createSmtpTransport(url: string, options: { maxConnections: number }) {
  return nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: options.maxConnections,
    maxMessages: 1000,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
}
