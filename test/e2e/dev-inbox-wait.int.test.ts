import { createKey } from "@mailroom/core/keys";
import { captureMessage } from "@mailroom/core/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type ApiStack, startApiStack } from "../support/stack.ts";

/**
 * The wait-for-message call over real HTTPS (issue 30 item 2): a request that waits is still waiting after
 * its (empty) request body has been read, and answers with the message captured meanwhile.
 */
let db: TestDatabase;
let api: ApiStack;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db);
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe("GET /v1/dev-inbox/messages?wait= over HTTPS", () => {
  it("holds the request until a matching message is captured, then answers with it", async () => {
    const key = (
      await createKey(db.pool, { account: "ci", scopes: ["send"], expires: "never", mode: "sandbox" })
    ).fullKey;
    let answered = false;
    const waiting = api
      .request("GET", "/v1/dev-inbox/messages?to=late%40example.test&wait=30", { key })
      .then((r) => {
        answered = true;
        return r;
      });
    // Another full request after it: the waiting one has been read and has polled by now.
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: {
        from: "a@ci.test",
        to: "late@example.test",
        subject: "late",
        text: "x",
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(sent.status, sent.text).toBe(200);
    await api.request("GET", "/v1/dev-inbox/messages?to=late%40example.test", { key });
    expect(answered).toBe(false);
    const id = await captureMessage(db.pool, {
      emailId: String(sent.json.messageId),
      account: "ci",
      envelopeFrom: "a@ci.test",
      recipients: ["late@example.test"],
      subject: "late",
      raw: Buffer.from("Subject: late\r\n\r\nx\r\n"),
    });
    const response = await waiting;
    expect(response.status).toBe(200);
    expect((response.json.data as { id: string }[]).map((m) => m.id)).toEqual([id]);
  });
});
