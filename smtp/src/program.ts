import type { Config } from "@mailroom/core/config";
import type { Pool } from "@mailroom/core/db";
import type { Logger, SmtpMetrics } from "@mailroom/core/telemetry";
import { reloadTlsOnChange, type TlsMaterial } from "@mailroom/core/tls";
import type { SmtpDeps } from "./deps.ts";
import { startInboundReceiver } from "./inbound/receiver.ts";
import { type ListeningSmtpServer, listenSmtpServer } from "./listen.ts";
import { createSubmissionServers } from "./submission/server.ts";

export interface SubmissionServers {
  /** Bound ports (useful when the config asked for port 0). */
  ports: { submission: number; submissionTls: number };
  /** Where each can be reached, for the banner. */
  describe: string[];
  close(): Promise<void>;
}

const hostOf = (host: string) => (host.includes(":") ? `[${host}]` : host);

/**
 * The submission door, listening: its STARTTLS and implicit-TLS ports, serving the API's certificate (re-read
 * like the API's, so a renewal needs no restart).
 */
export async function startSubmissionServers(deps: SmtpDeps): Promise<SubmissionServers> {
  const { submission } = deps.config;
  const { starttls, implicitTls } = createSubmissionServers(deps);
  const stopReloading = reloadTlsOnChange(
    deps.tls,
    deps.config.api.tlsReloadSeconds,
    ({ cert, key }) => {
      for (const server of [starttls, implicitTls]) {
        server.updateSecureContext({ cert, key, minVersion: "TLSv1.2" });
      }
    },
    deps.logger,
  );
  const listening: ListeningSmtpServer[] = [];
  const close = async () => {
    stopReloading();
    await Promise.all(listening.map((server) => server.close()));
  };
  try {
    listening.push(await listenSmtpServer(starttls, submission.port, submission.host));
    listening.push(await listenSmtpServer(implicitTls, submission.tlsPort, submission.host));
  } catch (error) {
    await close();
    throw error;
  }
  const [plain, tls] = listening as [ListeningSmtpServer, ListeningSmtpServer];
  const host = hostOf(submission.host);
  return {
    ports: { submission: plain.port, submissionTls: tls.port },
    describe: [
      `Submission smtp://${host}:${plain.port} (STARTTLS), smtps://${host}:${tls.port} (AUTH: any user, an API key)`,
    ],
    close,
  };
}

export interface SmtpDoors {
  describe: string[];
  close(): Promise<void>;
}

/**
 * The doors of `mailroom smtp` (ADR 0019) that the config opens: submission (apps sending through Mailroom)
 * and the inbound receiver (bounce and complaint reports for the bounce domains). Both write through core.
 * Submission needs the certificate; the receiver offers STARTTLS with it when there is one.
 */
export async function startSmtpDoors(deps: {
  config: Config;
  pool: Pool;
  logger: Logger;
  metrics: SmtpMetrics;
  tls: TlsMaterial | undefined;
}): Promise<SmtpDoors> {
  const { config, tls } = deps;
  if (!config.submission.enabled && !config.inbound.enabled) {
    throw new Error(
      "mailroom smtp has no door open: set MAILROOM_SUBMISSION_ENABLED=true or MAILROOM_INBOUND_ENABLED=true",
    );
  }
  const opened: SmtpDoors[] = [];
  const close = async () => {
    await Promise.all(opened.map((door) => door.close()));
  };
  try {
    if (config.submission.enabled) {
      if (!tls) {
        throw new Error(
          "SMTP submission needs TLS: set MAILROOM_TLS_CERT_FILE and MAILROOM_TLS_KEY_FILE (the API's), or " +
            "MAILROOM_SUBMISSION_ENABLED=false to run the bounce receiver alone",
        );
      }
      opened.push(await startSubmissionServers({ ...deps, tls }));
    }
    if (config.inbound.enabled) {
      const inbound = await startInboundReceiver(deps, {
        host: config.inbound.host,
        port: config.inbound.port,
        hostname: config.dnsRecords.mxHost ?? config.smtp.hostname,
        maxBytes: config.inbound.maxBytes,
        tls: tls && { cert: Buffer.from(tls.cert), key: Buffer.from(tls.key) },
      });
      opened.push({
        describe: [
          `Bounces    smtp://${hostOf(config.inbound.host)}:${inbound.port} (MX of the bounce domains)`,
        ],
        close: () => inbound.close(),
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { describe: opened.flatMap((door) => door.describe), close };
}
