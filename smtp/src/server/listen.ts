import type { AddressInfo } from "node:net";
import type { SMTPServer } from "smtp-server";

/** Starts listening; resolves with the bound port (useful with port 0), rejects when the port is taken. */
export function listenSmtp(server: SMTPServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting and closes open sessions (smtp-server answers them 421 and waits up to its closeTimeout). */
export function closeSmtp(server: SMTPServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
