import { Resolver } from "node:dns/promises";
import { authenticate } from "mailauth";
import type { ReceivedMessage, SmtpSink } from "./smtp-sink.ts";

/** The first message the sink received for a recipient, once there is one (each recipient has its own copy). */
export async function receivedFor(
  sink: Pick<SmtpSink, "messages">,
  recipient: string,
  timeoutMs = 30_000,
): Promise<ReceivedMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = sink.messages.find((m) => m.envelope.to.includes(recipient));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`nothing reached the sink for ${recipient}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * mailauth, an independent verifier, judging a message as a receiving MX would, against the records the test
 * DNS server at `dnsServer` serves: DKIM, SPF for the envelope sender (the message's own unless given), DMARC.
 */
export function createMailJudge(dnsServer: string) {
  // Generous: on a loaded machine a 1 s single try made mailauth answer `temperror` (a DNS timeout), which
  // says nothing about the signature (seen once in the client matrix during a full run).
  const resolver = new Resolver({ timeout: 5000, tries: 3 });
  resolver.setServers([dnsServer]);
  return (message: ReceivedMessage | Buffer, sender?: string) =>
    authenticate(Buffer.isBuffer(message) ? message : message.raw, {
      ip: "127.0.0.1",
      helo: "mailroom.localhost",
      mta: "mx.example.net",
      sender: sender ?? (Buffer.isBuffer(message) ? "" : message.envelope.from),
      disableArc: true,
      disableBimi: true,
      resolver: (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>,
    });
}
