import { createTestCa, type TestCa } from "@mailroom/core/tls";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CountingSmtpSink, startCountingSink } from "../../../test/support/smtp-sinks.ts";
import { createRelayTransport, type RelayTransportOptions } from "./relay.ts";
import type { MailTransport, OutboundMessage } from "./types.ts";

// The relay is reached as "localhost" so that its certificate can be valid (or not) for that name.
let ca: TestCa;
let sink: CountingSmtpSink | undefined;
let transport: MailTransport | undefined;

beforeAll(async () => {
  ca = await createTestCa();
});
afterEach(async () => {
  await transport?.close();
  await sink?.close();
  transport = undefined;
  sink = undefined;
});

function message(requireTls = false): OutboundMessage {
  const raw = Buffer.from("From: app@example.test\r\nTo: u@a.test\r\nSubject: relay tls\r\n\r\nHello.\r\n");
  return {
    envelope: { from: () => "b@example.test", to: ["u@a.test"] },
    raw,
    messageId: "<r@x>",
    requireTls,
  };
}

async function relay(
  receiver: { names?: string[]; starttls?: boolean },
  options: Partial<RelayTransportOptions> = {},
) {
  const tls = await ca.issue(receiver.names ?? ["localhost"]);
  sink = await startCountingSink({ starttls: receiver.starttls ?? true, key: tls.key, cert: tls.cert });
  transport = createRelayTransport({ url: `smtp://localhost:${sink.port}`, maxConnections: 1, ...options });
  return { sink, transport };
}

describe("relay TLS", () => {
  it("verifies the relay's certificate by default: an untrusted one is refused before any mail", async () => {
    const { sink, transport } = await relay({});
    const [result] = await transport.send(message());
    expect(result?.status).toBe("temporary");
    expect(result?.tls).toMatchObject({
      mechanism: "relay",
      policyDomain: "localhost",
      result: "certificate-not-trusted",
      enforced: true,
      verified: false,
    });
    expect(sink.messages).toHaveLength(0);
  });

  it("refuses a certificate for another name even from a trusted CA", async () => {
    const { sink, transport } = await relay({ names: ["relay.elsewhere.test"] }, { ca: ca.cert });
    const [result] = await transport.send(message());
    expect(result?.status).toBe("temporary");
    expect(result?.tls?.result).toBe("certificate-host-mismatch");
    expect(sink.messages).toHaveLength(0);
  });

  it("reports a verified session to a trusted relay", async () => {
    const { sink, transport } = await relay({}, { ca: ca.cert });
    const [result] = await transport.send(message(true));
    expect(result?.status).toBe("accepted");
    expect(result?.tls).toMatchObject({ mechanism: "relay", result: "success", tls: true, verified: true });
    expect(sink.messages.map((m) => m.secure)).toEqual([true]);
  });

  it("with allowUnverifiedTls, delivers over an untrusted certificate unless the email requires TLS", async () => {
    const { sink, transport } = await relay({}, { allowUnverifiedTls: true });
    const [plain] = await transport.send(message());
    expect(plain?.status).toBe("accepted");
    expect(plain?.tls).toMatchObject({ result: "certificate-not-trusted", enforced: false, tls: true });
    const [required] = await transport.send(message(true));
    expect(required?.status).toBe("temporary");
    expect(required?.response).toMatch(/^REQUIRETLS: localhost: the certificate is not trusted/);
    expect(sink.messages).toHaveLength(1);
  });

  it("uses a plain relay (the local capture) as it is, but not for an email that requires TLS", async () => {
    const { sink, transport } = await relay({ starttls: false });
    const [plain] = await transport.send(message());
    expect(plain?.status).toBe("accepted");
    expect(plain?.tls).toMatchObject({ result: "starttls-not-supported", enforced: false, tls: false });
    const [required] = await transport.send(message(true));
    expect(required).toMatchObject({ status: "temporary" });
    expect(required?.response).toMatch(/^REQUIRETLS: localhost: no TLS/);
    expect(sink.messages).toHaveLength(1);
  });
});
