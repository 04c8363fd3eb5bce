import { Resolver } from "node:dns/promises";
import { withTransaction } from "@mailroom/core/db";
import {
  createEndpoint,
  createSsrfGuard,
  emitEvents,
  getDelivery,
  getEndpoint,
  listDeliveries,
  type OutboxEvent,
  rotateEndpointSecret,
} from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { sleep, until } from "../../../test/support/wait.ts";
import type { WebhookReceiver } from "../../../test/support/webhook-receiver.ts";
import {
  createReceiverEndpoint,
  useWebhookWorker,
  type WebhookWorkerSetup,
} from "../../../test/support/webhook-runner.ts";
import type { WebhookTaskDeps } from "./webhook-deliver.ts";

const LOOPBACK = ["127.0.0.0/8"];

let db: TestDatabase;
let dns: TestDnsServer;
let receiver: WebhookReceiver;
let startWorker: WebhookWorkerSetup["start"];
useWebhookWorker((setup) => {
  ({ db, start: startWorker } = setup);
});
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(async () => {
  await dns.close();
});

/** Starts a real graphile-worker runner with the webhook tasks, and a fresh receiver. */
async function start(options: Partial<WebhookTaskDeps> = {}): Promise<void> {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  receiver = await startWorker({
    allowedCidrs: LOOPBACK,
    timeoutMs: 2_000,
    resolve: async (host) => (await resolver.resolve4(host)).map((address) => ({ address, family: 4 })),
    ...options,
  });
}

const endpoint = (url: string, events: string[] = []) =>
  createReceiverEndpoint(db, receiver, { url, events });

const emit = (events: OutboxEvent[]) => withTransaction(db.pool, (client) => emitEvents(client, events));

/** The endpoint's one delivery with its attempts, once fan-out has made it (empty attempts until then). */
async function onlyDelivery(account: string, endpointId: string) {
  const { data } = await listDeliveries(db.pool, account, endpointId);
  if (data.length > 1) throw new Error(`expected one delivery, found ${data.length}`);
  if (!data[0]) return { delivery: undefined, attempts: [] };
  return getDelivery(db.pool, account, endpointId, data[0].id);
}

describe("webhook delivery through graphile-worker to a real receiver", () => {
  it("delivers a signed event that the standardwebhooks library verifies; a tampered copy is refused", async () => {
    await start();
    const { account, endpoint: ep, secret } = await endpoint(`${receiver.origin}/hook`);
    const [eventId] = await emit([
      {
        account,
        type: "email.delivered",
        data: { emailId: "0190c0de-0000-7000-8000-000000000001", to: ["a@b.c"] },
      },
    ]);
    const [request] = await receiver.waitFor(1);
    expect(request?.verifiedWith).toEqual([secret]);
    expect(request?.headers["webhook-id"]).toBe(eventId);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.payload).toMatchObject({
      type: "email.delivered",
      data: { emailId: "0190c0de-0000-7000-8000-000000000001", to: ["a@b.c"] },
    });
    expect(Date.parse(request?.payload?.timestamp ?? "")).not.toBeNaN();

    const { delivery, attempts } = await until(
      () => onlyDelivery(account, ep.id),
      (d) => d.delivery?.state === "succeeded",
    );
    expect(delivery).toMatchObject({ state: "succeeded", attempts: 1, lastStatusCode: 204, eventId });
    expect(attempts).toMatchObject([{ attempt: 1, statusCode: 204, error: null, nextAttemptAt: null }]);

    // The same headers on an altered body must not verify: the receiver's check is real.
    const tampered = await fetch(`${receiver.origin}/hook`, {
      method: "POST",
      headers: {
        "webhook-id": String(request?.headers["webhook-id"]),
        "webhook-timestamp": String(request?.headers["webhook-timestamp"]),
        "webhook-signature": String(request?.headers["webhook-signature"]),
      },
      body: request?.body.replace("a@b.c", "x@b.c"),
    });
    expect(tampered.status).toBe(401);
    expect(receiver.received[1]?.verifiedWith).toEqual([]);
  });

  it("sends only subscribed types, only to the event's account", async () => {
    await start();
    const subscribed = await endpoint(`${receiver.origin}/a`, ["email.bounced"]);
    const other = await createEndpoint(
      db.pool,
      { account: "someone-else", url: `${receiver.origin}/b` },
      { ssrf: createSsrfGuard({ allowedCidrs: LOOPBACK }) },
    );
    await emit([
      { account: subscribed.account, type: "email.queued", data: { emailId: "e1" } },
      { account: subscribed.account, type: "email.bounced", data: { emailId: "e1" } },
    ]);
    const [request] = await receiver.waitFor(1);
    await sleep(300);
    expect(receiver.received.map((r) => [r.path, r.payload?.type])).toEqual([["/a", "email.bounced"]]);
    expect(request?.verifiedWith).toEqual([subscribed.secret]);
    expect((await listDeliveries(db.pool, "someone-else", other.endpoint.id)).data).toEqual([]);
  });

  it("keeps each email's events in order, even when the first one needs a retry", async () => {
    await start();
    const { account } = await endpoint(`${receiver.origin}/hook`);
    // The first request fails: every later event of that email must wait behind it.
    receiver.respond((_, index) => (index === 0 ? { status: 503 } : { status: 200 }));
    const types = ["email.queued", "email.deferred", "email.delivered"] as const;
    for (const type of types) {
      await emit([
        { account, type, data: { emailId: "A" } },
        { account, type, data: { emailId: "B" } },
      ]);
    }
    const requests = await receiver.waitFor(7);
    const seen = (emailId: string) =>
      requests.filter((r) => r.payload?.data.emailId === emailId).map((r) => [r.payload?.type, r.answer]);
    const first = requests[0]?.payload?.data.emailId as string;
    expect(seen(first)).toEqual([
      ["email.queued", { status: 503 }],
      ["email.queued", { status: 200 }],
      ["email.deferred", { status: 200 }],
      ["email.delivered", { status: 200 }],
    ]);
    expect(seen(first === "A" ? "B" : "A").map(([type]) => type)).toEqual(types);
  });

  it("signs with both secrets while a rotation overlaps", async () => {
    await start();
    const { account, endpoint: ep, secret: previous } = await endpoint(`${receiver.origin}/hook`);
    const { secret: current } = await rotateEndpointSecret(db.pool, account, ep.id);
    receiver.setSecrets(previous, current);
    await emit([{ account, type: "domain.verified", data: { domainId: "d1", name: "example.com" } }]);
    const [request] = await receiver.waitFor(1);
    expect(request?.verifiedWith).toEqual([previous, current]);
    expect(String(request?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
  });

  it("does not follow redirects", async () => {
    await start();
    const { account, endpoint: ep } = await endpoint(`${receiver.origin}/hook`);
    receiver.respond((r) =>
      r.path === "/hook" ? { status: 307, location: `${receiver.origin}/elsewhere` } : { status: 200 },
    );
    await emit([{ account, type: "email.failed", data: { emailId: "e1", reason: "suppressed" } }]);
    const { attempts } = await until(
      () => onlyDelivery(account, ep.id),
      (d) => d.attempts.length >= 2,
    );
    expect(attempts.map((a) => a.statusCode)).toEqual([307, 307]);
    // A later retry may reach the receiver before its attempt is recorded: count /hook, never /elsewhere.
    const paths = receiver.received.map((r) => r.path);
    expect(paths.length).toBeGreaterThanOrEqual(2);
    expect(new Set(paths)).toEqual(new Set(["/hook"]));
  });
});

describe("SSRF guard at delivery time", () => {
  it("refuses a name that resolves to the metadata address, and sends nothing", async () => {
    await start();
    dns.setRecords("imds.hooks.test", [{ type: "A", address: "169.254.169.254" }]);
    const { account, endpoint: ep } = await endpoint(
      `http://imds.hooks.test:${new URL(receiver.origin).port}/`,
    );
    await emit([{ account, type: "email.queued", data: { emailId: "e1" } }]);
    const { attempts } = await until(
      () => onlyDelivery(account, ep.id),
      (d) => d.attempts.length >= 1,
    );
    // The tenant reads a class of failure, not what its name resolved to (ADR 0027).
    expect(attempts[0]?.error).toBe("refused: not an allowed target");
    expect(receiver.received).toEqual([]);
  });

  it("refuses a name resolving to loopback without an allow-list, and delivers with one", async () => {
    await start({ allowedCidrs: [] });
    dns.setRecords("local.hooks.test", [{ type: "A", address: "127.0.0.1" }]);
    const url = `http://local.hooks.test:${new URL(receiver.origin).port}/hook`;
    const strict = await endpoint(url);
    await emit([{ account: strict.account, type: "email.queued", data: { emailId: "e1" } }]);
    const refused = await until(
      () => onlyDelivery(strict.account, strict.endpoint.id),
      (d) => d.attempts.length >= 1,
    );
    expect(refused.attempts[0]?.error).toBe("refused: not an allowed target");
    expect(receiver.received).toEqual([]);

    // A new runner and receiver, replacing the strict ones.
    await start({ allowedCidrs: LOOPBACK });
    const allowed = await endpoint(`http://local.hooks.test:${new URL(receiver.origin).port}/hook`);
    await emit([{ account: allowed.account, type: "email.queued", data: { emailId: "e2" } }]);
    const [request] = await receiver.waitFor(1);
    // Connected to the checked address while the Host header keeps the name.
    expect(request?.headers.host).toBe(`local.hooks.test:${new URL(receiver.origin).port}`);
    expect(request?.verifiedWith).toEqual([allowed.secret]);
    expect((await getEndpoint(db.pool, allowed.account, allowed.endpoint.id)).enabled).toBe(true);
  });
});
