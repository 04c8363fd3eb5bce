import { createKey, revokeKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
});
afterAll(async () => {
  await api.close();
  await sink.close();
  await db.drop();
});

describe("revocation racing the worker", () => {
  it("never hands over mail after the revoke committed, and fails the rest with api_key_revoked", async () => {
    const { key, fullKey } = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "never",
    });
    const N = 150;
    const batch = Array.from({ length: N }, (_, i) => ({
      from: "race@acme.test",
      to: `r${i}@example.test`,
      subject: `race ${i}`,
      text: "t",
    }));
    for (const part of [batch.slice(0, 75), batch.slice(75)]) {
      const accepted = await api.request("POST", "/v1/send/batch", { key: fullKey, body: part });
      expect(accepted.status).toBe(200);
    }

    // Revoke once deliveries are under way, so it lands while jobs run.
    let handovers = 0;
    const original = sink.answer;
    sink.answer = (recipient) => {
      handovers += 1;
      return original(recipient);
    };
    const worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "8" });
    try {
      const deadline = Date.now() + 10_000;
      while (handovers < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      const revoked = await revokeKey(db.pool, key.keyId);
      const revokedAt = Date.now();
      expect(revoked?.failedEmailIds.length).toBeGreaterThan(0);

      // Let every job finish.
      const settle = Date.now() + 15_000;
      for (;;) {
        const { rows } = await db.pool.query<{ n: number }>(
          "select count(*)::int as n from emails where status in ('queued', 'sending', 'deferred')",
        );
        if (rows[0]?.n === 0 || Date.now() > settle) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const { rows } = await db.pool.query<{ status: string; failure_reason: string | null; to: string[] }>(
        "select status, failure_reason, to_addresses as to from emails",
      );
      const delivered = new Set(rows.filter((r) => r.status === "delivered").map((r) => r.to[0]));
      const failed = rows.filter((r) => r.status === "failed");
      expect(delivered.size + failed.length).toBe(N);
      expect(delivered.size).toBeGreaterThan(0);
      expect(failed.length).toBeGreaterThan(0);
      for (const row of failed) expect(row.failure_reason).toBe("api_key_revoked");
      // What the sink received is exactly what is marked delivered: no failed email was handed over.
      const received = new Set(sink.messages.flatMap((m) => m.envelope.to));
      expect(received).toEqual(delivered);
      // The revoke waited for in-flight claims; nothing was claimed after it committed.
      const { rows: late } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from email_events where type = 'sending' and at > to_timestamp($1 / 1000.0)`,
        [revokedAt],
      );
      expect(late[0]?.n).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
