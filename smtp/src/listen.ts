import type { AddressInfo } from "node:net";
import type { SMTPServer } from "smtp-server";

/** A listening SMTP server: the port it got (0 asks for any) and how to close it. */
export interface ListeningSmtpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Starts `server` on `host:port`. smtp-server re-emits its socket's errors on itself (a taken port included):
 * listening for them there makes a busy port reject with EADDRINUSE, like the other ports, instead of leaving
 * the promise pending for ever.
 */
export async function listenSmtpServer(
  server: SMTPServer,
  port: number,
  host: string,
): Promise<ListeningSmtpServer> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
