import { connect, createServer, type Server } from "node:net";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { type ReceivedMessage, startSmtpCapture } from "./smtp-capture.ts";

let busy: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (busy ? busy.close(resolve) : resolve(undefined)));
});

describe("SMTP capture", () => {
  it("fails with EADDRINUSE on a taken port, as the other listeners do", async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy?.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as { port: number };
    await expect(startSmtpCapture({ host: "127.0.0.1", port, store: async () => {} })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
  });

  it("survives a client that resets its connection, and captures the next message", async () => {
    const stored: ReceivedMessage[] = [];
    const capture = await startSmtpCapture({
      host: "127.0.0.1",
      port: 0,
      store: async (message) => {
        stored.push(message);
      },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port: capture.port });
        let replies = "";
        socket.on("data", (chunk: Buffer) => {
          replies += chunk.toString();
          if (replies.startsWith("220") && !replies.includes("EHLO-SENT")) {
            replies += "EHLO-SENT";
            socket.write("EHLO client.test\r\nMAIL FROM:<a@acme.test>\r\n");
          }
          // Inside a transaction (after MAIL FROM's 250) a reset is an error smtp-server reports.
          if (/\r\n250 Accepted/.test(replies)) {
            socket.resetAndDestroy();
            setTimeout(resolve, 200);
          }
        });
        socket.once("error", reject);
      });
      const transport = nodemailer.createTransport({ host: "127.0.0.1", port: capture.port, secure: false });
      await transport.sendMail({
        from: "a@acme.test",
        to: "b@example.test",
        subject: "after",
        text: "still here",
      });
      transport.close();
      expect(stored.map((m) => [m.envelopeFrom, m.recipients])).toEqual([
        ["a@acme.test", ["b@example.test"]],
      ]);
    } finally {
      await capture.close();
    }
  });
});
