import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/ports.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, captureLogs, startApiStack, startWorkerStack } from "../support/stack.ts";
import { until } from "../support/wait.ts";

// Spec §5.8: no key in any log. The API and the worker run with every log line captured (level trace);
// keys travel where clients put them by mistake (query string, path, bodies that fail, a webhook URL), and
// afterwards no line of either program holds a key's secret.
const LOOPBACK = { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" };
const apiLogs = captureLogs();
const workerLogs = captureLogs();
let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;

/**
 * A loopback port nobody listens on: freePort's, below the kernel's ephemeral range. A port that range gave out
 * and took back could be given meanwhile to a server another test file starts on port 0, and then answer.
 */
const closedPort = freePort;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db, { env: LOOPBACK, logger: apiLogs.logger });
});
afterAll(async () => {
  await api.close();
  await sink.close();
  await db.drop();
});

describe("no key in any log", () => {
  it("redacts keys from every URL, header, body error and webhook failure of a run", async () => {
    const { fullKey: key } = await createKey(db.pool, {
      account: "logs",
      scopes: ["send", "webhooks"],
      expires: "never",
    });
    const [, keyId, secret] = key.split("_") as [string, string, string];
    const statuses = [
      (await api.request("GET", `/v1/emails/${key}`, { key })).status,
      (await api.request("GET", `/v1/emails?api_key=${key}`)).status,
      (await api.request("GET", `/v1/emails?limit=1&api_key=${encodeURIComponent(key)}`, { key })).status,
      (await api.request("GET", "/v1/emails", { headers: { authorization: `Bearer ${key}x` } })).status,
      (await api.request("GET", "/v1/emails", { headers: { authorization: `Basic ${key}` } })).status,
      (await api.request("POST", "/v1/send", { key, body: `{"from":"${key}", broken` })).status,
      (
        await api.request("POST", "/v1/send", {
          key,
          body: { from: key, to: `${key}@example.test`, subject: key, text: key },
        })
      ).status,
    ];
    expect(statuses.every((s) => s >= 400 && s < 500)).toBe(true);

    // A webhook endpoint whose URL carries the key, refusing connections: the worker's failure is logged.
    const hook = await api.request("POST", "/v1/webhooks", {
      key,
      body: { url: `http://127.0.0.1:${await closedPort()}/hook?token=${key}`, events: ["email.queued"] },
    });
    expect(hook.status, hook.text).toBe(201);
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "b@example.test", subject: "s", text: "t" },
    });
    expect(sent.status).toBe(200);
    const worker = await startWorkerStack(db, sink.url, LOOPBACK, { logger: workerLogs.logger });
    try {
      await sink.waitFor(1);
      const attempts = await until(
        async () => (await db.pool.query("select 1 from webhook_attempts")).rowCount ?? 0,
        (n) => n > 0,
        20_000,
      );
      expect(attempts).toBeGreaterThan(0);
    } finally {
      await worker.stop();
    }

    const lines = [...apiLogs.lines, ...workerLogs.lines];
    expect(lines.filter((l) => l.includes(secret))).toEqual([]);
    // The lines that would have held the key are there, with the key id kept and the secret gone.
    const api_ = apiLogs.lines.join("\n");
    expect(api_).toContain(`/v1/emails/mrk_${keyId}_[redacted]`);
    expect(api_).toContain(`api_key=mrk_${keyId}_[redacted]`);
    expect(workerLogs.lines.some((l) => l.includes("webhook delivery"))).toBe(true);
  });
});

describe("a successful delivery", () => {
  it("logs graphile-worker's per-job success line at debug, not info (issue 21: it cost worker CPU)", async () => {
    const { fullKey: key } = await createKey(db.pool, {
      account: "quiet",
      scopes: ["send"],
      expires: "never",
    });
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: { from: "a@acme.test", to: "quiet@example.test", subject: "s", text: "t" },
    });
    expect(sent.status, sent.text).toBe(200);
    const logs = captureLogs();
    const before = sink.messages.length;
    const worker = await startWorkerStack(db, sink.url, LOOPBACK, { logger: logs.logger });
    try {
      await sink.waitFor(before + 1);
      const done = () => logs.lines.filter((l) => l.includes("(deliver,") && l.includes("with success"));
      await until(
        async () => done().length,
        (n) => n > 0,
        20_000,
      );
      // pino levels: 20 debug, 30 info.
      expect(done().map((l) => (JSON.parse(l) as { level: number }).level)).toEqual([20]);
    } finally {
      await worker.stop();
    }
  });
});
