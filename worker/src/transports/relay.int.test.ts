import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../test/support/ports.ts";
import {
  type CountingSmtpSink,
  type SinkOptions,
  startCountingSink,
} from "../../../test/support/smtp-sinks.ts";
import { createRelayTransport } from "./relay.ts";
import type { MailTransport, OutboundMessage } from "./types.ts";

let sink: CountingSmtpSink | undefined;
let transport: MailTransport | undefined;

afterEach(async () => {
  await transport?.close();
  await sink?.close();
  transport = undefined;
  sink = undefined;
});

function message(to: string[], body = "Hello.\r\n"): OutboundMessage {
  const raw = Buffer.from(
    `From: App <app@example.test>\r\nTo: ${to.join(", ")}\r\nSubject: relay test\r\n` +
      `Message-ID: <m1@example.test>\r\n\r\n${body}`,
  );
  return { envelope: { from: () => "bounces@example.test", to }, raw, messageId: "<m1@example.test>" };
}

async function relayTo(options: SinkOptions = {}, url?: (s: CountingSmtpSink) => string, ca?: string) {
  sink = await startCountingSink(options);
  transport = createRelayTransport({
    url: url ? url(sink) : `smtp://127.0.0.1:${sink.port}`,
    maxConnections: 2,
    heloName: "mailroom.test",
    ...(ca ? { ca } : {}),
  });
  return { sink, transport };
}

describe("relay transport", () => {
  it("reports each recipient's own answer when the relay accepts some and refuses others", async () => {
    const { sink, transport } = await relayTo();
    sink.answerRecipient = (to) =>
      to.startsWith("later")
        ? { code: 451, message: "4.7.1 greylisted" }
        : to.startsWith("bad")
          ? { code: 550, message: "5.1.1 no such user" }
          : { code: 250 };
    const results = await transport.send(message(["ok@a.test", "later@a.test", "bad@b.test", "ok2@b.test"]));
    expect(results.map((r) => [r.recipient, r.status, r.code])).toEqual([
      ["ok@a.test", "accepted", 250],
      ["later@a.test", "temporary", 451],
      ["bad@b.test", "permanent", 550],
      ["ok2@b.test", "accepted", 250],
    ]);
    expect(results[1]?.response).toContain("greylisted");
    expect(results[2]?.response).toContain("no such user");
    expect(sink.messages.map((m) => m.envelope.to)).toEqual([["ok@a.test", "ok2@b.test"]]);
    expect(sink.messages[0]?.helo).toBe("mailroom.test");
  });

  it("sends one transaction per envelope sender: each recipient's own Return-Path (issue 26)", async () => {
    const { sink, transport } = await relayTo();
    sink.answerRecipient = (to) =>
      to.startsWith("bad") ? { code: 550, message: "5.1.1 no such user" } : { code: 250 };
    const msg = message(["a@x.test", "b@y.test", "bad@x.test"]);
    msg.envelope.from = (recipient) => `bounce+${recipient.split("@")[0]}@bounces.example.test`;
    const results = await transport.send(msg);
    expect(results.map((r) => [r.recipient, r.status])).toEqual([
      ["a@x.test", "accepted"],
      ["b@y.test", "accepted"],
      ["bad@x.test", "permanent"],
    ]);
    expect(sink.messages.map((m) => [m.envelope.from, m.envelope.to])).toEqual([
      ["bounce+a@bounces.example.test", ["a@x.test"]],
      ["bounce+b@bounces.example.test", ["b@y.test"]],
    ]);
    expect(sink.messages.every((m) => m.raw.equals(msg.raw))).toBe(true);
  });

  it("reports every recipient when the relay refuses all of them", async () => {
    const { sink, transport } = await relayTo();
    sink.answerRecipient = (to) =>
      to.startsWith("full")
        ? { code: 452, message: "4.2.2 mailbox full" }
        : { code: 550, message: "5.1.1 unknown" };
    const results = await transport.send(message(["full@a.test", "gone@a.test"]));
    expect(results.map((r) => [r.status, r.code])).toEqual([
      ["temporary", 452],
      ["permanent", 550],
    ]);
    expect(sink.messages).toHaveLength(0);
  });

  it("defers every recipient on a 4xx for the whole transaction and bounces them on a 5xx at DATA", async () => {
    const { sink, transport } = await relayTo();
    sink.answerMailFrom = () => ({ code: 421, message: "4.3.2 try again later" });
    const deferred = await transport.send(message(["a@a.test", "b@b.test"]));
    expect(deferred.map((r) => [r.status, r.code])).toEqual([
      ["temporary", 421],
      ["temporary", 421],
    ]);

    sink.answerMailFrom = () => ({ code: 250 });
    sink.answerData = () => ({ code: 554, message: "5.7.1 content rejected" });
    const bounced = await transport.send(message(["a@a.test", "b@b.test"]));
    expect(bounced.map((r) => [r.status, r.code])).toEqual([
      ["permanent", 554],
      ["permanent", 554],
    ]);
    expect(bounced[0]?.response).toContain("content rejected");
    expect(sink.messages).toHaveLength(0);
  });

  it("defers every recipient when the relay refuses the connection", async () => {
    // Nothing listens there: a port of the kernel's ephemeral range, closed and reused, could be taken by any
    // server another test file starts on port 0 meanwhile; freePort's never is.
    const port = await freePort();
    transport = createRelayTransport({ url: `smtp://127.0.0.1:${port}`, maxConnections: 1 });
    const results = await transport.send(message(["a@a.test", "b@b.test"]));
    expect(results.map((r) => r.status)).toEqual(["temporary", "temporary"]);
    expect(results[0]?.code).toBeUndefined();
    expect(results[0]?.response).toMatch(/ECONNREFUSED/);
  });

  it("defers (does not bounce) when the relay wants a login it was not given", async () => {
    const { sink, transport } = await relayTo({ auth: { user: "u", pass: "p" } });
    const [result] = await transport.send(message(["ok@a.test"]));
    expect(result).toMatchObject({ status: "temporary", code: 530 });
    expect(sink.messages).toHaveLength(0);
  });

  it("hands over the raw bytes unchanged", async () => {
    const { sink, transport } = await relayTo();
    // Lines that tempt a rewriting client: a leading dot (dot-stuffing), 8-bit bytes, trailing blanks,
    // a folded header and a line longer than 78 characters.
    const body = `.starts with a dot\r\n..two dots\r\nnon-ASCII: Grüße, 日本\r\ntrailing   \r\n${"x".repeat(900)}\r\n`;
    const msg = message(["ok@a.test"], body);
    msg.raw = Buffer.concat([Buffer.from("X-Folded: one\r\n\ttwo\r\n"), msg.raw]);
    const [result] = await transport.send(msg);
    expect(result?.status).toBe("accepted");
    expect(sink.messages[0]?.raw.equals(msg.raw)).toBe(true);
  });

  it("reuses at most maxConnections pooled connections for concurrent sends", async () => {
    const { sink, transport } = await relayTo({ dataDelayMs: 50 });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => transport.send(message([`r${i}@a.test`]))),
    );
    expect(results.flat().every((r) => r.status === "accepted")).toBe(true);
    expect(sink.messages).toHaveLength(8);
    expect(sink.connections).toBe(2);
    expect(sink.maxConcurrentConnections).toBe(2);
  });

  it("sends once more on a new session when one is lost mid-send, and defers when that one is lost too", async () => {
    const relay = await droppingRelay(1);
    transport = createRelayTransport({ url: `smtp://127.0.0.1:${relay.port}`, maxConnections: 1 });
    const [delivered] = await transport.send(message(["ok@a.test"]));
    expect(delivered).toMatchObject({ status: "accepted", code: 250 });
    expect(relay.sessions()).toBe(2);
    await transport.close();
    relay.close();

    const failing = await droppingRelay(5);
    transport = createRelayTransport({ url: `smtp://127.0.0.1:${failing.port}`, maxConnections: 1 });
    const [deferred] = await transport.send(message(["ok@a.test"]));
    expect(deferred?.status).toBe("temporary");
    expect(deferred?.code).toBeUndefined();
    expect(failing.sessions()).toBe(2);
    failing.close();
  });

  it("refuses a relay URL with a query string rather than ignore what it says", () => {
    expect(() =>
      createRelayTransport({ url: "smtp://127.0.0.1:2525?tls.rejectUnauthorized=false", maxConnections: 1 }),
    ).toThrow(/query string/);
  });

  describe("TLS and authentication", () => {
    let dir: string;
    let ca: string;
    let tls: { key: string; cert: string };

    const setup = async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-relay-tls-"));
      const files = await ensureLocalCertificates(dir, ["127.0.0.1", "localhost"]);
      ca = await readFile(files.caCertFile, "utf8");
      tls = { key: await readFile(files.keyFile, "utf8"), cert: await readFile(files.certFile, "utf8") };
    };
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("upgrades smtp:// with STARTTLS and logs in", async () => {
      await setup();
      const auth = { user: "relay-user", pass: "s3cret/with:chars" };
      const url = (s: CountingSmtpSink) =>
        `smtp://${auth.user}:${encodeURIComponent(auth.pass)}@127.0.0.1:${s.port}`;
      const { sink, transport } = await relayTo({ starttls: true, auth, ...tls }, url, ca);
      const [result] = await transport.send(message(["ok@a.test"]));
      expect(result?.status).toBe("accepted");
      expect(sink.messages[0]?.secure).toBe(true);
    });

    it("speaks TLS from the first byte on smtps://", async () => {
      await setup();
      const { sink, transport } = await relayTo(
        { secure: true, ...tls },
        (s) => `smtps://127.0.0.1:${s.port}`,
        ca,
      );
      const [result] = await transport.send(message(["ok@a.test"]));
      expect(result?.status).toBe("accepted");
      expect(sink.messages[0]?.secure).toBe(true);
    });

    it("defers (does not bounce) when the relay's certificate is not trusted or the login fails", async () => {
      await setup();
      const auth = { user: "relay-user", pass: "right" };
      const { transport: untrusted } = await relayTo({ starttls: true, auth, ...tls });
      const [refused] = await untrusted.send(message(["ok@a.test"]));
      expect(refused?.status).toBe("temporary");
      await untrusted.close();
      await sink?.close();

      const badLogin = (s: CountingSmtpSink) => `smtp://relay-user:wrong@127.0.0.1:${s.port}`;
      const { sink: second, transport: wrong } = await relayTo(
        { starttls: true, auth, ...tls },
        badLogin,
        ca,
      );
      const [rejected] = await wrong.send(message(["ok@a.test"]));
      expect(rejected).toMatchObject({ status: "temporary", code: 535 });
      expect(second.messages).toHaveLength(0);
    });
  });
});

/**
 * A minimal SMTP relay whose first `drops` sessions end without a reply at MAIL FROM (a relay that closed the
 * connection under its client); later sessions accept the message.
 */
async function droppingRelay(drops: number) {
  let sessions = 0;
  const server = createServer((socket) => {
    const dropping = sessions++ < drops;
    let inData = false;
    socket.write("220 relay ready\r\n");
    socket.on("data", (chunk) => {
      for (const line of chunk.toString("latin1").split("\r\n").filter(Boolean)) {
        if (inData) {
          if (line === ".") {
            inData = false;
            socket.write("250 queued\r\n");
          }
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write("250 relay\r\n");
        else if (/^MAIL FROM/i.test(line) && dropping) socket.destroy();
        else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write("354 go ahead\r\n");
        } else if (/^QUIT/i.test(line)) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { port, sessions: () => sessions, close: () => server.close() };
}
