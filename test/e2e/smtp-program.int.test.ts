import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createKey } from "@mailroom/core/keys";
import { ensureLocalCertificates, type LocalTlsFiles } from "@mailroom/core/tls";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { sendWithNodemailer } from "../support/reports.ts";
import { until } from "../support/wait.ts";

// `mailroom smtp` is one program with two doors (ADR 0019): submission and the bounce receiver, each on
// unless turned off, behind one banner and one internal port.
const BIN = path.resolve(import.meta.dirname, "../../cli/bin/mailroom.js");

let db: TestDatabase;
let dir: string;
let tls: LocalTlsFiles;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into domains (id, account, name, status, return_path_domain)
     values (gen_random_uuid(), mailroom_ensure_account('shop'), 'shop.test', 'verified', 'bounces.shop.test')`,
  );
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-smtp-program-"));
  tls = await ensureLocalCertificates(dir, ["localhost", "127.0.0.1"]);
});
afterAll(async () => {
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

/** Starts `mailroom smtp` with `env` on ephemeral ports; collects its output. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, "smtp"], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: db.url,
      MAILROOM_INBOUND_SMTP_PORT: "0",
      MAILROOM_SUBMISSION_PORT: "0",
      MAILROOM_SUBMISSION_TLS_PORT: "0",
      MAILROOM_SMTP_INTERNAL_PORT: "0",
      MAILROOM_LOG_LEVEL: "silent",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run = { child, output: "" };
  child.stdout.on("data", (c: Buffer) => {
    run.output += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    run.output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { run, exited };
}

/** Waits for the banner line `pattern` (or the program's exit) and returns its match. */
async function bannerLine(run: { child: ChildProcess; output: string }, pattern: RegExp) {
  const match = await until(
    async () => pattern.exec(run.output),
    (m) => m !== null || run.child.exitCode !== null,
    60_000,
  );
  if (!match) throw new Error(`no ${pattern} in the banner:\n${run.output}`);
  return match;
}

const REPORT = Buffer.from("From: MAILER-DAEMON@mx.example.org\r\nSubject: failure notice\r\n\r\nx\r\n");

describe("mailroom smtp", () => {
  it("opens both doors with the certificate: submission accepts a message, the receiver a report; one metrics port", async () => {
    const { run, exited } = start({
      MAILROOM_TLS_CERT_FILE: tls.certFile,
      MAILROOM_TLS_KEY_FILE: tls.keyFile,
      MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    });
    try {
      const submission = await bannerLine(run, /Submission smtp:\/\/127\.0\.0\.1:(\d+) \(STARTTLS\)/);
      const bounces = await bannerLine(run, /Bounces\s+smtp:\/\/127\.0\.0\.1:(\d+)/);
      const metrics = await bannerLine(run, /SMTP metrics (http:\/\/\S+)\/metrics/);
      // One banner: each door and the internal port once.
      expect(run.output.match(/SMTP metrics/g)).toHaveLength(1);

      const { fullKey } = await createKey(db.pool, { account: "shop", scopes: ["send"], expires: "never" });
      const transport = nodemailer.createTransport({
        host: "127.0.0.1",
        port: Number(submission[1]),
        secure: false,
        requireTLS: true,
        tls: { ca: await readFile(tls.caCertFile), servername: "localhost" },
        auth: { user: "grafana", pass: fullKey },
      });
      const info = await transport.sendMail({
        from: "alerts@shop.test",
        to: "oncall@example.test",
        subject: "Disk full",
        text: "Disk full on db-1.",
      });
      transport.close();
      const id = /queued as (\S+)/i.exec(info.response)?.[1];
      const { rows: emails } = await db.pool.query("select source, subject from emails where id = $1", [id]);
      expect(emails).toEqual([{ source: "smtp", subject: "Disk full" }]);

      const stored = await sendWithNodemailer(Number(bounces[1]), "bounce+x@bounces.shop.test", REPORT);
      expect(stored.code, stored.response).toBe(250);

      const scrape = await fetch(`${metrics[1]}/metrics`).then((r) => r.text());
      expect(scrape).toMatch(/mailroom_emails_accepted_total\{[^}]*result="queued"[^}]*\} 1/);
      expect((await fetch(`${metrics[1]}/readyz`)).status).toBe(200);
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await exited, run.output).toBe(0);
  }, 90_000);

  it("runs the bounce receiver alone with submission off: stores a report for a verified bounce domain, refuses others", async () => {
    const { run, exited } = start({ MAILROOM_SUBMISSION_ENABLED: "false" });
    try {
      const banner = await bannerLine(run, /Bounces\s+smtp:\/\/127\.0\.0\.1:(\d+)/);
      expect(run.output).not.toMatch(/Submission/);
      const port = Number(banner[1]);
      const stored = await sendWithNodemailer(port, "bounce+x@bounces.shop.test", REPORT);
      expect(stored.code, stored.response).toBe(250);
      const { rows } = await db.pool.query("select rcpt_to from inbound_reports where id = $1", [
        stored.reportId,
      ]);
      expect(rows).toEqual([{ rcpt_to: ["bounce+x@bounces.shop.test"] }]);
      expect((await sendWithNodemailer(port, "x@bounces.elsewhere.test", REPORT)).code).toBe(550);
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await exited, run.output).toBe(0);
  }, 90_000);

  it("refuses to start submission without a certificate, saying what to set", async () => {
    const { run, exited } = start({});
    expect(await exited).toBe(1);
    expect(run.output).toMatch(/SMTP submission needs TLS: set MAILROOM_TLS_CERT_FILE/);
    expect(run.output).toMatch(/MAILROOM_SUBMISSION_ENABLED=false/);
  }, 60_000);
});
