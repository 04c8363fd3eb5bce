import { loadConfig } from "@mailroom/core/config";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../api/src/app.ts";
import { type SmtpCapture, startSmtpCapture, storeByMessageId } from "../../cli/src/smtp-capture.ts";
import { injectAs, keyFor } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startWorkerStack, TEST_KEK } from "../support/stack.ts";
import { until } from "../support/wait.ts";

/**
 * Issue 26, item 5: `mailroom run`'s dev inbox, end to end as a local run wires it (the real worker hands
 * mail to the real capture server, the API serves what it stored): each key sees its own account's
 * captured mail, never another's.
 */

let db: TestDatabase;
let capture: SmtpCapture;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let app: FastifyInstance;
beforeAll(async () => {
  db = await createTestDatabase();
  capture = await startSmtpCapture({
    host: "127.0.0.1",
    port: 0,
    store: storeByMessageId(db.pool),
  });
  worker = await startWorkerStack(db, `smtp://127.0.0.1:${capture.port}`);
  app = buildApp({
    config: loadConfig({ MAILROOM_ALLOW_UNVERIFIED_FROM: "true" }),
    pool: db.pool,
    logger: createLogger({ level: "silent", name: "test" }),
    metrics: createApiMetrics(),
    kek: TEST_KEK,
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await worker?.stop();
  await capture?.close();
  await db?.drop();
});

describe("the dev inbox is scoped to the key's account", () => {
  it("each account's key lists and reads its own captured mail only", async () => {
    const keys = { alpha: await keyFor(db, "alpha", ["send"]), beta: await keyFor(db, "beta", ["send"]) };
    for (const [account, key] of Object.entries(keys)) {
      const sent = await injectAs(app, key, "POST", "/v1/send", {
        from: `App <app@${account}.test>`,
        to: "dev@example.test",
        subject: `secret of ${account}`,
        text: `only ${account} may read this`,
      });
      expect(sent.statusCode, sent.body).toBe(200);
    }
    const list = async (key: string) =>
      (await injectAs(app, key, "GET", "/v1/dev-inbox/messages")).json().data as {
        id: string;
        subject: string;
      }[];
    for (const [account, key] of Object.entries(keys)) {
      const mine = await until(
        () => list(key),
        (data) => data.length > 0,
        20_000,
      );
      expect(mine.map((m) => m.subject)).toEqual([`secret of ${account}`]);
    }
    const [alphaMessage] = await list(keys.alpha);
    for (const url of ["", "/raw", "/attachments/0"]) {
      const res = await injectAs(app, keys.beta, "GET", `/v1/dev-inbox/messages/${alphaMessage?.id}${url}`);
      expect(res.statusCode, url).toBe(404);
    }
    expect((await injectAs(app, keys.beta, "DELETE", "/v1/dev-inbox/messages")).statusCode).toBe(204);
    expect((await list(keys.alpha)).map((m) => m.subject)).toEqual(["secret of alpha"]);
    expect(await list(keys.beta)).toEqual([]);
  });
});
