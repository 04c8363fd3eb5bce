import { reloadTlsOnChange } from "@mailroom/core/tls";
import type { SmtpDeps } from "./deps.ts";
import { closeSmtp, listenSmtp } from "./server/listen.ts";
import { createSubmissionServers } from "./submission/server.ts";

export interface SmtpServers {
  /** Bound ports (useful when the config asked for port 0). */
  ports: { submission: number; submissionTls: number };
  /** Where each can be reached, for the banner. */
  describe: string[];
  close(): Promise<void>;
}

const hostOf = (host: string) => (host.includes(":") ? `[${host}]` : host);

/**
 * The servers of `mailroom smtp`, listening: SMTP submission on its STARTTLS and implicit-TLS ports, serving
 * the API's certificate (re-read like the API's, so a renewal needs no restart).
 */
export async function startSmtpServers(deps: SmtpDeps): Promise<SmtpServers> {
  const { submission } = deps.config;
  const { starttls, implicitTls } = createSubmissionServers(deps);
  const servers = [starttls, implicitTls];
  const stopReloading = reloadTlsOnChange(
    deps.tls,
    deps.config.api.tlsReloadSeconds,
    ({ cert, key }) => {
      for (const server of servers) server.updateSecureContext({ cert, key, minVersion: "TLSv1.2" });
    },
    deps.logger,
  );
  const close = async () => {
    stopReloading();
    await Promise.all(servers.map((server) => closeSmtp(server)));
  };
  try {
    const ports = {
      submission: await listenSmtp(starttls, submission.port, submission.host),
      submissionTls: await listenSmtp(implicitTls, submission.tlsPort, submission.host),
    };
    const host = hostOf(submission.host);
    return {
      ports,
      describe: [
        `SMTP submission smtp://${host}:${ports.submission} (STARTTLS), smtps://${host}:${ports.submissionTls}`,
      ],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
