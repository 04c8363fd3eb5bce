import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CTRL_C = path.join(ROOT, "test/support/ctrl-c.py");
const run = promisify(execFile);
let dataDir = "";

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

// The README's first command, typed in a terminal and stopped with Ctrl-C as a person would: on a real
// pseudo-terminal (Python's pty), so the terminal's own handling of Ctrl-C is what is tested.
describe("make run, stopped with Ctrl-C", { timeout: 240_000 }, () => {
  it("stops the programs, then Postgres, and prints no error line (nor make's Interrupt)", async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "mailroom-make-run-"));
    // As root, Postgres runs as its own system user, which must reach the data directory.
    await chmod(dataDir, 0o755);
    const capturePort = await freePort();
    const submissionPort = await freePort();
    const submissionTlsPort = await freePort();
    const env: Record<string, string> = Object.fromEntries(
      Object.entries(process.env).filter(
        (entry): entry is [string, string] =>
          entry[1] !== undefined && !entry[0].startsWith("MAILROOM_") && entry[0] !== "DATABASE_URL",
      ),
    );
    Object.assign(env, {
      NO_COLOR: "1",
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_EMBEDDED_PG_PORT: String(await freePort()),
      MAILROOM_API_PORT: String(await freePort()),
      MAILROOM_API_INTERNAL_PORT: String(await freePort()),
      MAILROOM_WORKER_INTERNAL_PORT: String(await freePort()),
      // The capture's port alone moves the capture; the worker follows it (no MAILROOM_SMTP_URL).
      MAILROOM_SMTP_CAPTURE_PORT: String(capturePort),
      MAILROOM_INBOUND_SMTP_PORT: String(await freePort()),
      MAILROOM_SUBMISSION_PORT: String(submissionPort),
      MAILROOM_SUBMISSION_TLS_PORT: String(submissionTlsPort),
      MAILROOM_SMTP_INTERNAL_PORT: String(await freePort()),
      // Before Ctrl-C: a client resets its connection to the capture, and the process groups are shown.
      CTRL_C_RESET_PORT: String(capturePort),
      CTRL_C_PIDFILE: path.join(dataDir, "postgres", "postmaster.pid"),
    });
    const { stdout } = await run(
      "python3",
      [CTRL_C, "Ctrl-C stops everything", "200", "make", "--no-print-directory", "run"],
      { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 },
    );
    const [started = "", stopping = ""] = stdout.split("<<ctrl-c>>");
    expect(started, stdout).toContain("Mailroom is running.");
    expect(started, stdout).toContain(`SMTP capture smtp://127.0.0.1:${capturePort} `);
    // The reset connection did not end the process (it stops cleanly below).
    expect(started, stdout).toContain("<<reset sent>>");
    // Postgres runs in a process group of its own: the terminal's Ctrl-C (SIGINT to the foreground group)
    // does not reach it; the program stops it, last.
    const groups = /<<pgid terminal=(\d+) pidfile=(\d+)>>/.exec(started);
    expect(groups, stdout).not.toBeNull();
    expect(groups?.[2]).not.toBe(groups?.[1]);
    // SMTP submission is part of it: both ports in the banner, and how to try it (ADR 0019).
    expect(started, stdout).toContain(
      `Submission smtp://127.0.0.1:${submissionPort} (STARTTLS), smtps://127.0.0.1:${submissionTlsPort}`,
    );
    expect(started, stdout).toContain(`swaks --server 127.0.0.1:${submissionPort} -tls`);
    expect(stopping, stdout).toContain("mailroom: Ctrl-C received, stopping");
    expect(stopping, stdout).toContain("mailroom: stopped cleanly");
    // No warning or error log line (pino levels 40 and up), no connection error, no make failure.
    expect(stopping, stdout).not.toMatch(/"level":(4|5|6)0|error|ECONNRESET|Interrupt|\*\*\*/i);
    expect(stdout.trimEnd().split("\n").at(-1)).toBe("exit 0");
    // Postgres was stopped by the program, not left running and not killed: its pid file is gone.
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });
});
