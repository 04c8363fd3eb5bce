/**
 * The baseline of bench/delivery/main.ts, forked as its own process: nodemailer's pooled SMTP transport with its
 * built-in DKIM signer (the verified domain's RSA-2048 key) sending the bench email straight to the sink,
 * `concurrency` sends in flight over as many pooled connections — what an application would do without
 * Mailroom. Pool options are those of Mailroom's relay transport. Imports nothing of Mailroom but the helper
 * that turns signing keys into nodemailer's DKIM options.
 */
import { createPrivateKey } from "node:crypto";
import { nodemailerDkimOptions } from "@mailroom/core/domains";
import nodemailer from "nodemailer";
import {
  type BaselineCommand,
  type BaselineJob,
  type BaselineMessage,
  CATEGORY,
  DOMAIN,
  FROM,
  HTML,
  now,
  recipient,
  SUBJECT,
  TEXT,
} from "./protocol.ts";

function post(message: BaselineMessage): void {
  if (!process.send) throw new Error("baseline.ts must be forked with an IPC channel");
  process.send(message);
}

async function main(job: BaselineJob): Promise<void> {
  const dkim =
    job.dkim &&
    nodemailerDkimOptions([
      {
        domainName: job.dkim.domainName,
        selector: job.dkim.keySelector,
        algorithm: "rsa",
        privateKey: createPrivateKey(job.dkim.privateKeyPem),
      },
    ]);
  const transporter = nodemailer.createTransport({
    url: job.smtpUrl,
    pool: true,
    maxConnections: job.concurrency,
    maxMessages: 1000,
    name: job.heloName,
    ...(dkim ? { dkim } : {}),
  });
  const errors: string[] = [];
  const send = (i: number, phase: string) =>
    transporter
      .sendMail({
        from: FROM,
        to: recipient(i),
        subject: SUBJECT,
        text: TEXT,
        html: HTML,
        messageId: `<${job.idPrefix}-${phase}-${i}@${DOMAIN}>`,
        headers: { "X-Mailroom-Category": CATEGORY },
      })
      .then(
        () => true,
        (error: Error) => {
          if (errors.length < 10) errors.push(error.message);
          return false;
        },
      );
  // `concurrency` lanes, each sending its next message as soon as the previous one was handed over.
  const run = async (count: number, phase: string) => {
    let next = 0;
    let sent = 0;
    const lane = async () => {
      while (next < count) {
        if (await send(next++, phase)) sent += 1;
      }
    };
    await Promise.all(Array.from({ length: job.concurrency }, lane));
    return sent;
  };
  await run(job.warmup, "warm");
  post({ type: "warm" });
  await go; // the orchestrator resets the sink's tally between warm-up and measurement
  const cpuBefore = process.cpuUsage();
  const startedAt = now();
  const sent = await run(job.count, "run");
  const endedAt = now();
  const cpu = process.cpuUsage(cpuBefore);
  transporter.close();
  post({ type: "done", result: { startedAt, endedAt, sent, errors, cpuMs: (cpu.user + cpu.system) / 1000 } });
}

let started: () => void = () => {};
const go = new Promise<void>((resolve) => {
  started = resolve;
});

process.on("disconnect", () => process.exit(1));
process.on("message", (message: BaselineCommand) => {
  if ("type" in message) {
    started();
    return;
  }
  main(message).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error("baseline sender failed:", error);
      process.exit(1);
    },
  );
});
