import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../../test/support/dns-server.ts";
import { createEndpoint } from "../../webhooks/store.ts";
import { verifyDomain } from "../recheck.ts";
import { createDomain } from "../store.ts";
import { makeTxtLookup } from "../verify.ts";
import { probeReverseDns, probeTls, type SendingPath } from "./probes.ts";

const KEK = Buffer.alloc(32, 9);
let db: TestDatabase;
let dns: TestDnsServer;
const servers: SMTPServer[] = [];

/** A real SMTP server on loopback, with or without STARTTLS (smtp-server's own certificate). */
async function smtpServer(starttls: boolean): Promise<string> {
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    disabledCommands: starttls ? ["AUTH"] : ["AUTH", "STARTTLS"],
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
}

const path = (overrides: Partial<SendingPath>): SendingPath => ({
  mode: "relay",
  relayUrl: "smtp://127.0.0.1:1",
  hostname: "out.mailroom.test",
  dnsServers: [dns.address],
  timeoutMs: 2_000,
  ...overrides,
});

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
});
afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  await dns?.close();
  await db?.drop();
});

describe("compliance probes against real servers", () => {
  it("TLS: passes a relay that offers STARTTLS, fails one that does not, unknown when it cannot be reached", async () => {
    expect(await probeTls(path({ relayUrl: await smtpServer(true) }))).toMatchObject({ status: "pass" });
    const clear = await probeTls(path({ relayUrl: await smtpServer(false) }));
    expect(clear).toMatchObject({
      status: "fail",
      reason: expect.stringContaining("does not offer STARTTLS"),
    });
    expect((await probeTls(path({ relayUrl: "smtp://127.0.0.1:1" }))).status).toBe("unknown");
    expect((await probeTls(path({ mode: "direct" }))).status).toBe("unknown");
  });

  it("ReverseDNS: direct mode needs the EHLO name's address to point back to it", async () => {
    dns.setRecords("out.mailroom.test", [{ type: "A", address: "127.0.0.9" }]);
    dns.setRecords("9.0.0.127.in-addr.arpa", [{ type: "PTR", domain: "out.mailroom.test" }]);
    expect(await probeReverseDns(path({ mode: "direct" }))).toMatchObject({
      status: "pass",
      reason: "127.0.0.9 point back to out.mailroom.test (forward-confirmed)",
    });
    dns.setRecords("9.0.0.127.in-addr.arpa", [{ type: "PTR", domain: "dyn-9.isp.test" }]);
    expect(await probeReverseDns(path({ mode: "direct" }))).toMatchObject({
      status: "fail",
      reason: "the PTR of 127.0.0.9 is dyn-9.isp.test, not out.mailroom.test",
    });
    expect((await probeReverseDns(path({ mode: "direct", hostname: "nowhere.mailroom.test" }))).status).toBe(
      "fail",
    );
    expect((await probeReverseDns(path({}))).status).toBe("unknown");
  });
});

describe("checks stored at each verification", () => {
  it("stores one entry per name and emits domain.check_failed once when a check regresses", async () => {
    await createEndpoint(db.pool, {
      account: "shop",
      url: "https://hooks.example.test/checks",
      events: ["domain.check_failed"],
    });
    const created = await createDomain(db.pool, KEK, {
      account: "shop",
      name: "checked.test",
      records: { mxHost: "mx.mailroom.test", spfMechanisms: ["include:_spf.relay.test"] },
    });
    for (const name of new Set(created.records.map((r) => r.name))) {
      dns.setRecords(
        name,
        created.records
          .filter((r) => r.name === name)
          .map((r) =>
            r.type === "TXT"
              ? { type: "TXT", strings: r.strings }
              : { type: "MX", priority: 10, exchange: "mx.mailroom.test" },
          ),
      );
    }
    const deps = {
      db: db.pool,
      lookup: makeTxtLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
      sendingPath: path({ relayUrl: await smtpServer(true) }),
    };
    const first = await verifyDomain(deps, created);
    expect(first?.domain.status).toBe("verified");
    expect(first?.domain.checks.map((c) => [c.name, c.status])).toEqual([
      ["SPF", "pass"],
      ["DKIM", "pass"],
      ["DMARC", "pass"],
      ["BounceMX", "pass"],
      ["ReverseDNS", "unknown"],
      ["TLS", "pass"],
    ]);
    const since = first?.domain.checks.find((c) => c.name === "DMARC")?.since;

    dns.removeName("_dmarc.checked.test");
    const second = await verifyDomain(deps, first?.domain ?? created);
    const dmarc = second?.domain.checks.find((c) => c.name === "DMARC");
    expect(dmarc).toMatchObject({ status: "fail", reason: expect.stringContaining("no DMARC record") });
    expect(dmarc?.since.getTime()).toBeGreaterThan(since?.getTime() ?? Infinity);
    await verifyDomain(deps, second?.domain ?? created);

    const { rows } = await db.pool.query<{ type: string; data: Record<string, unknown> }>(
      `select type, data from webhook_events where account = 'shop' order by id`,
    );
    expect(rows).toEqual([
      {
        type: "domain.check_failed",
        data: expect.objectContaining({ domain: "checked.test", check: "DMARC" }),
      },
    ]);
  });
});
