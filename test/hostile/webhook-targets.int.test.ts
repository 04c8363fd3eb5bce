import { randomUUID } from "node:crypto";
import { withTransaction } from "@mailroom/core/db";
import { CLOUD_METADATA_ADDRESSES, createAddressPolicy } from "@mailroom/core/net";
import { emitEvents } from "@mailroom/core/webhooks";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { injectAs, keyFor, startTestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/ports.ts";
import { until } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createReceiverEndpoint, startWebhookRunner } from "../support/webhook-runner.ts";

/**
 * Issue 26, item 4: every cloud's metadata addresses, IPv6 included, are refused whatever the allow-list says;
 * with an allow-list that admits an internal range, what a tenant reads back about a target is what a
 * receiver's owner needs (ADR 0027).
 */

let db: TestDatabase;
let app: FastifyInstance;
let key: string;
let receiver: WebhookReceiver | undefined;
let stopRunner: (() => Promise<void>) | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
  // Everything allowed: the metadata addresses must stay refused regardless.
  app = await startTestApp(db, { MAILROOM_WEBHOOK_ALLOWED_CIDRS: "0.0.0.0/0,::/0" });
  key = await keyFor(db, "targets", ["webhooks"]);
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await stopRunner?.();
  stopRunner = undefined;
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const everything = createAddressPolicy(["0.0.0.0/0", "::/0"]);
const cases = Object.entries(CLOUD_METADATA_ADDRESSES).flatMap(([provider, list]) =>
  list.map((address) => [provider, address] as const),
);

describe("cloud metadata addresses, every provider's, IPv6 included", () => {
  it("lists the IPv6 metadata services of AWS, GCP and OCI, and Azure's WireServer", () => {
    expect(cases.map(([, a]) => a)).toEqual(
      expect.arrayContaining(["fd00:ec2::254", "fd20:ce::254", "fd00:c1::a9fe:a9fe", "168.63.129.16"]),
    );
  });

  it.each(cases)("%s %s: refused by the address policy with everything allowed", (_provider, address) => {
    expect(everything.refusalOf(address)).toMatch(/metadata/);
  });

  it.each(cases)("%s %s: a webhook URL naming it is a 400, with everything allowed", async (_p, address) => {
    const host = address.includes(":") ? `[${address}]` : address;
    const res = await injectAs(app, key, "POST", "/v1/webhooks", { url: `http://${host}/hook` });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: "validation_error", message: expect.stringMatching(/^url: /) });
  });
});

async function emit(account: string) {
  await withTransaction(db.pool, (client) =>
    emitEvents(client, [
      { account, type: "email.delivered", data: { emailId: randomUUID(), to: ["a@b.c"] } },
    ]),
  );
}

async function attemptsOf(endpointId: string, count: number) {
  return until(
    async () =>
      (
        await db.pool.query<{
          status_code: number | null;
          response_excerpt: string | null;
          error: string | null;
        }>(
          "select status_code, response_excerpt, error from webhook_attempts where endpoint_id = $1 order by id",
          [endpointId],
        )
      ).rows,
    (rows) => rows.length >= count,
    20_000,
  );
}

describe("what a tenant reads back about a target", () => {
  it("no excerpt of an answer until the endpoint has answered 2xx once; then a short one", async () => {
    receiver = await startWebhookReceiver();
    const internal = `internal-service-data ${"x".repeat(2000)}`;
    receiver.respond((_r, i) => (i === 1 ? { status: 204 } : { status: 500, body: internal }));
    const { account, endpoint } = await createReceiverEndpoint(db, receiver);
    stopRunner = await startWebhookRunner({ pool: db.pool, allowedCidrs: ["127.0.0.0/8"] });
    await emit(account);
    const [first] = await attemptsOf(endpoint.id, 1);
    expect(first).toMatchObject({ status_code: 500, response_excerpt: null });
    // The retry is answered 204; the next event's 500 then keeps a short excerpt for the owner.
    await attemptsOf(endpoint.id, 2);
    await emit(account);
    const rows = await attemptsOf(endpoint.id, 3);
    expect(rows.map((r) => r.status_code)).toEqual([500, 204, 500]);
    expect(rows[2]?.response_excerpt?.startsWith("internal-service-data")).toBe(true);
    expect(rows[2]?.response_excerpt?.length).toBe(256);
  });

  it("a closed port and a refused address read as a class of failure: no address, no errno", async () => {
    receiver = await startWebhookReceiver();
    const port = await freePort();
    const { account, endpoint } = await createReceiverEndpoint(db, receiver, {
      url: `http://127.0.0.1:${port}/`,
    });
    stopRunner = await startWebhookRunner({ pool: db.pool, allowedCidrs: ["127.0.0.0/8"] });
    await emit(account);
    const [row] = await attemptsOf(endpoint.id, 1);
    expect(row?.error).toBe("could not connect");
  });
});
