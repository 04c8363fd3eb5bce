import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge } from "../support/mail-checks.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

/**
 * Issue 30 item 1, "signed exactly as in production": a sandbox key sending from a verified domain (the
 * from-domain check on) gets the same DKIM signature a live email gets, checked by mailauth on the captured
 * bytes against the records the test DNS server publishes.
 */
const DOMAIN = "sandbox-shop.test";
let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };
  api = await startApiStack(db, { env });
  worker = await startWorkerStack(db, sink.url);
  const domainsKey = (await createKey(db.pool, { account: "shop", scopes: ["domains"], expires: "never" }))
    .fullKey;
  const created = await api.request("POST", "/v1/domains", { key: domainsKey, body: { name: DOMAIN } });
  expect(created.status, created.text).toBe(201);
  for (const record of created.json.records as Array<{ name: string; strings: string[] }>)
    dns.setTxt(record.name, record.strings);
  const verified = await api.request("POST", `/v1/domains/${DOMAIN}/verify`, { key: domainsKey });
  expect(verified.json.status).toBe("verified");
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

describe("sandbox mail is signed as live mail is", () => {
  it("the captured bytes carry a DKIM signature of the sender's domain that mailauth verifies", async () => {
    const key = (
      await createKey(db.pool, { account: "shop", scopes: ["send"], expires: "never", mode: "sandbox" })
    ).fullKey;
    const sent = await api.request("POST", "/v1/send", {
      key,
      body: { from: `Shop <orders@${DOMAIN}>`, to: "buyer@example.net", subject: "Order 7", text: "Thanks" },
    });
    expect(sent.status, sent.text).toBe(200);
    const listed = await api.request("GET", "/v1/dev-inbox/messages?to=buyer%40example.net&wait=20", { key });
    const [message] = listed.json.data as { id: string }[];
    const raw = await api.request("GET", `/v1/dev-inbox/messages/${message?.id}/raw`, { key });
    const verdict = await createMailJudge(dns.address)(Buffer.from(raw.text));
    expect(
      verdict.dkim.results.map((r) => ({ result: r.status.result, domain: r.signingDomain })),
    ).toContainEqual({
      result: "pass",
      domain: DOMAIN,
    });
    expect(sink.messages).toEqual([]);
  });
});
