import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../core/src/keys/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { CHART_DIR } from "./support/helm.ts";

// The script the chart's `helm test` pod runs, run here as the pod would: plain Node, the key in a file, the
// CA through NODE_EXTRA_CA_CERTS, against the real API and worker delivering to a real SMTP server.
const SCRIPT = path.join(CHART_DIR, "files/tests/send-email.mjs");

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-helm-test-"));
  await writeFile(path.join(dir, "ca.crt"), api.ca);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
  await sink.close();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

function runScript(keyFile: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT],
      {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? "",
          MAILROOM_URL: api.server.url,
          NODE_EXTRA_CA_CERTS: path.join(dir, "ca.crt"),
          TEST_API_KEY_FILE: keyFile,
          TEST_FROM: "helm-test@acme.test",
          TEST_TO: "ops@example.test",
          TEST_IDEMPOTENCY_KEY: "helm-test-1",
          TEST_RETRY_DELAY_MS: "100",
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("helm test script", () => {
  it("sends one email through the API and waits until it is delivered", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const keyFile = path.join(dir, "apiKey");
    await writeFile(keyFile, `${fullKey}\n`);
    const result = await runScript(keyFile, {
      TEST_WAIT_FOR_DELIVERY: "true",
      TEST_DELIVERY_TIMEOUT_SECONDS: "20",
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/accepted, queued, messageId \S+/);
    expect(result.stdout).toContain("helm test: delivered");
    expect(result.code).toBe(0);
    const [message] = await sink.waitFor(1);
    expect(message?.parsed.subject).toBe("Mailroom helm test");
    expect(message?.envelope.to).toEqual(["ops@example.test"]);
  });

  it("fails with the API's answer when the key is refused", async () => {
    const keyFile = path.join(dir, "badKey");
    await writeFile(keyFile, "mrk_AAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    const result = await runScript(keyFile, { TEST_IDEMPOTENCY_KEY: "helm-test-2" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FAILED: POST \/v1\/send answered HTTP 401: .*invalid_api_key/);
  });
});
