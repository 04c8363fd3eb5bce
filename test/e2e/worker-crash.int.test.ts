import { type ChildProcess, spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createKey } from "@mailroom/core/keys";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

const FAST_RECOVERY = { MAILROOM_WORKER_HEARTBEAT_SECONDS: "0.5", MAILROOM_WORKER_DEAD_AFTER_SECONDS: "2" };

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let child: ChildProcess | undefined;
let hanging: SMTPServer | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await new Promise<void>((resolve) => (hanging ? hanging.close(() => resolve()) : resolve()));
  await api.close();
  await sink.close();
  await db.drop();
});

/** An SMTP server that takes the message and never answers DATA: the handover is in flight forever. */
async function startHangingSink(onMessageId: (id: string) => void): Promise<string> {
  hanging = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => {
        raw += chunk.toString();
      });
      stream.on("end", () => onMessageId(/^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? ""));
    },
  });
  const server = hanging;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
}

describe("a worker killed mid-delivery", () => {
  it("leaves nothing stuck: another worker retries within seconds, with the same Message-ID", async () => {
    let firstMessageId = "";
    const seen = new Promise<void>((resolve) => {
      void startHangingSink((id) => {
        firstMessageId = id;
        resolve();
      }).then((url) => {
        child = spawn(process.execPath, [path.resolve(import.meta.dirname, "../support/worker-process.ts")], {
          env: { ...process.env, DATABASE_URL: db.url, MAILROOM_SMTP_URL: url, ...FAST_RECOVERY },
          stdio: ["ignore", "pipe", "inherit"],
        });
      });
    });
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const res = await api.request("POST", "/v1/send", {
      key: fullKey,
      body: { from: "a@acme.test", to: "crash@example.test", subject: "survives", text: "t" },
    });
    const id = String(res.json.messageId);
    await seen;
    const { rows: during } = await db.pool.query("select status from emails where id = $1", [id]);
    expect(during[0]?.status).toBe("sending");

    child?.kill("SIGKILL");
    const killedAt = Date.now();
    const worker = await startWorkerStack(db, sink.url, {
      ...FAST_RECOVERY,
      MAILROOM_WORKER_CONCURRENCY: "2",
    });
    try {
      const [message] = await sink.waitFor(1, 20_000);
      expect(Date.now() - killedAt).toBeLessThan(20_000);
      expect(message?.parsed.messageId).toBe(firstMessageId);
      expect(firstMessageId).toBe(`<${id}@mailroom.localhost>`);
      const deadline = Date.now() + 5_000;
      let status = "";
      while (status !== "delivered" && Date.now() < deadline) {
        const { rows } = await db.pool.query<{ status: string }>("select status from emails where id = $1", [
          id,
        ]);
        status = rows[0]?.status ?? "";
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe("delivered");
      const { rows: events } = await db.pool.query<{ type: string }>(
        "select type from email_events where email_id = $1 order by id",
        [id],
      );
      expect(events.map((e) => e.type)).toEqual(["queued", "sending", "sending", "delivered"]);
    } finally {
      await worker.stop();
    }
  });
});
