import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { sendWithNodemailer } from "../support/reports.ts";
import { until } from "../support/wait.ts";

const BIN = path.resolve(import.meta.dirname, "../../cli/bin/mailroom.js");

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into domains (id, account, name, status, return_path_domain)
     values (gen_random_uuid(), 'shop', 'shop.test', 'verified', 'bounces.shop.test')`,
  );
});
afterAll(async () => {
  await db.drop();
});

describe("mailroom smtp", () => {
  it("runs the bounce receiver: stores a report for a verified bounce domain, refuses others, stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [BIN, "smtp"], {
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: db.url,
        MAILROOM_INBOUND_SMTP_PORT: "0",
        MAILROOM_SMTP_INTERNAL_PORT: "0",
        MAILROOM_LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const banner = await until(
        async () => /Bounces\s+smtp:\/\/127\.0\.0\.1:(\d+)/.exec(output),
        (match) => match !== null || child.exitCode !== null,
        60_000,
      );
      if (!banner) throw new Error(`no banner:\n${output}`);
      const port = Number(banner[1]);
      const report = Buffer.from(
        "From: MAILER-DAEMON@mx.example.org\r\nSubject: failure notice\r\n\r\nx\r\n",
      );
      const stored = await sendWithNodemailer(port, "bounce+x@bounces.shop.test", report);
      expect(stored.code, stored.response).toBe(250);
      const { rows } = await db.pool.query("select rcpt_to from inbound_reports where id = $1", [
        stored.reportId,
      ]);
      expect(rows).toEqual([{ rcpt_to: ["bounce+x@bounces.shop.test"] }]);
      expect((await sendWithNodemailer(port, "x@bounces.elsewhere.test", report)).code).toBe(550);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited, output).toBe(0);
  }, 90_000);
});
