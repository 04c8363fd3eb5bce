import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import path from "node:path";
import { freePort } from "../../support/ports.ts";

const MAILROOM = path.resolve(import.meta.dirname, "../../../cli/bin/mailroom.js");

/** The SMTP door's submission ports, free loopback ones; the bounce receiver off. */
export const smtpDoorEnv = async (): Promise<Record<string, string>> => ({
  MAILROOM_SMTP_INTERNAL_PORT: "0",
  MAILROOM_SUBMISSION_HOST: "127.0.0.1",
  MAILROOM_SUBMISSION_PORT: String(await freePort()),
  MAILROOM_SUBMISSION_TLS_PORT: String(await freePort()),
  MAILROOM_INBOUND_ENABLED: "false",
});

/**
 * One Mailroom program (`mailroom worker`, `mailroom api` or `mailroom smtp`) in a process of its own, as a pod runs it, with a
 * supervisor's habit: a program that exits on its own is started again (Kubernetes restarts the container).
 * Its log goes to a file under the run's directory, for the post-mortem of a failed fault.
 */
export interface Program {
  readonly name: string;
  /** The internal port (`/readyz`, `/metrics`) of the current process. */
  internalUrl(): string;
  /** The API's base URL (api programs). */
  apiUrl(): string;
  /** The submission door's STARTTLS port (smtp programs). */
  submissionPort(): number;
  /** How many times it exited on its own and was started again. */
  restarts: number;
  pid(): number | undefined;
  /** SIGKILL: no handler runs, nothing is returned to the queue. */
  kill9(): void;
  /** Starts it again after a kill (the supervisor would). */
  start(): Promise<void>;
  /** `/readyz` answered 200 (false when it answers otherwise or not at all). */
  ready(): Promise<boolean>;
  /** A counter's total over its label sets, from `/metrics` (0 when unreachable). */
  metric(name: string): Promise<number>;
  /** The sample lines of `/metrics` whose name starts with `prefix` ("" when unreachable). */
  samples(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

export function startProgram(options: {
  name: string;
  command: "worker" | "api" | "smtp";
  env: Record<string, string>;
  logFile: string;
  /** The `mailroom` executable to run: this checkout's, unless another release's (the upgrade test). */
  bin?: string;
}): Program {
  let child: ChildProcess | undefined;
  let internal = "";
  let api = "";
  let submission = 0;
  let stopping = false;
  let log: WriteStream | undefined;
  const program: Program = {
    name: options.name,
    restarts: 0,
    internalUrl: () => internal,
    apiUrl: () => api,
    submissionPort: () => submission,
    pid: () => child?.pid,
    kill9() {
      const killed = child;
      child = undefined;
      killed?.kill("SIGKILL");
    },
    start() {
      log ??= createWriteStream(options.logFile, { flags: "a" });
      const proc = spawn(process.execPath, [options.bin ?? MAILROOM, options.command], {
        env: { ...process.env, ...options.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = proc;
      proc.stdout?.pipe(log, { end: false });
      return new Promise<void>((resolve, reject) => {
        let out = "";
        // The programs print where they listen on stderr (stdout carries only results).
        proc.stderr?.on("data", (chunk: Buffer) => {
          log?.write(chunk);
          out += chunk.toString();
          const metrics = /metrics (http:\/\/[^/\s]+)\/metrics/.exec(out);
          const apiLine = /^API\s+(https:\/\/\S+)/m.exec(out);
          const submissionLine = /^Submission\s+smtp:\/\/[^\s:]+:(\d+)/m.exec(out);
          if (metrics?.[1] && (options.command !== "api" || apiLine?.[1])) {
            internal = metrics[1];
            api = apiLine?.[1] ?? "";
            submission = Number(submissionLine?.[1] ?? 0);
            resolve();
          }
        });
        proc.once("exit", (code, signal) => {
          log?.write(`\n[fault suite] ${options.name} exited (code ${code}, signal ${signal})\n`);
          reject(new Error(`${options.name} exited before it was up (code ${code}); see ${options.logFile}`));
          if (child === proc && !stopping) {
            // Exited on its own: the supervisor starts it again.
            program.restarts += 1;
            child = undefined;
            setTimeout(() => {
              if (!stopping) program.start().catch(() => {});
            }, 500);
          }
        });
      });
    },
    async ready() {
      try {
        const res = await fetch(`${internal}/readyz`, { signal: AbortSignal.timeout(2_000) });
        return res.status === 200;
      } catch {
        return false;
      }
    },
    async metric(name) {
      let total = 0;
      for (const line of await program.samples(name)) {
        if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
          total += Number(line.split(" ").at(-1));
      }
      return total;
    },
    async samples(prefix) {
      try {
        const res = await fetch(`${internal}/metrics`, { signal: AbortSignal.timeout(2_000) });
        return (await res.text()).split("\n").filter((line) => line.startsWith(prefix));
      } catch {
        return [];
      }
    },
    async stop() {
      stopping = true;
      const proc = child;
      child = undefined;
      if (proc && proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.once("exit", resolve));
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await new Promise((resolve) => (log ? log.end(resolve) : resolve(undefined)));
    },
  };
  return program;
}
