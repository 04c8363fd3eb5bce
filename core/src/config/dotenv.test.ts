import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CONFIG_VARIABLES, loadConfig } from "./config.ts";
import { withDotenv } from "./dotenv.ts";
import { environmentHelp, VARIABLES } from "./variables.ts";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function dotenv(text: string): Promise<string> {
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-dotenv-"));
  await writeFile(path.join(dir, ".env"), text);
  return dir;
}

describe(".env", () => {
  it("is read from the directory, under the real environment", async () => {
    const at = await dotenv(
      'MAILROOM_API_PORT=9443\n# a comment\nMAILROOM_LOG_LEVEL="debug"\nMAILROOM_HOSTNAME=file\n',
    );
    const { env, file } = withDotenv({ MAILROOM_HOSTNAME: "real", MAILROOM_LOG_LEVEL: "" }, at);
    expect(file).toBe(path.join(at, ".env"));
    const config = loadConfig(env);
    expect(config.api.port).toBe(9443);
    expect(config.smtp.hostname).toBe("real");
    // An empty variable is unset (as loadConfig treats it), so the file's value applies.
    expect(config.log.level).toBe("debug");
  });

  it("is optional", () => {
    const env = { MAILROOM_API_PORT: "1" };
    expect(withDotenv(env, path.join(os.tmpdir(), "no-such-dir"))).toEqual({ env });
  });
});

describe("environmentHelp", () => {
  it("knows who reads every variable", () => {
    expect(Object.keys(VARIABLES).sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("lists each variable a command reads with its default", () => {
    const help = environmentHelp("worker");
    expect(help).toMatch(/MAILROOM_WORKER_CONCURRENCY +.+\[20\]/);
    expect(help).toMatch(/DATABASE_URL +.+\[unset\]/);
    expect(help).not.toContain("MAILROOM_API_PORT");
    expect(environmentHelp("api")).toMatch(/MAILROOM_API_PORT +.+\[8443\]/);
    expect(environmentHelp("run")).toMatch(/MAILROOM_SMTP_CAPTURE_PORT +.+\[2525\]/);
  });
});
