import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { until } from "../../../test/support/wait.ts";
import { createMxResolver, type MailRoute, type MxResolverOptions } from "./mx-resolver.ts";

// Documentation addresses (RFC 5737, RFC 3849): answers to compare, never connected to.
const IP_1 = "192.0.2.1";
const IP_2 = "192.0.2.2";
const IP6_1 = "2001:db8::1";

let dns: TestDnsServer;

beforeEach(async () => {
  dns = await startDnsServer();
});
afterEach(async () => {
  await dns.close();
});

function resolverWith(options: Omit<MxResolverOptions, "servers">) {
  return createMxResolver({ servers: [dns.address], ...options });
}

const hostNames = (route: MailRoute) => (route.kind === "hosts" ? route.hosts.map((h) => h.name) : []);

describe("mx resolver: caching", () => {
  it("reuses an address answer within its TTL and asks again once it has expired", async () => {
    const resolver = resolverWith({ cacheSeconds: 300 });
    dns.setRecords("mx.ttl.test", [
      { type: "A", address: IP_1, ttl: 1 },
      { type: "AAAA", address: IP6_1, ttl: 1 },
    ]);
    expect(await resolver.resolveAddresses("mx.ttl.test")).toEqual([IP_1, IP6_1]);
    const answeredAt = Date.now();
    dns.setRecords("mx.ttl.test", [{ type: "A", address: IP_2, ttl: 1 }]);

    expect(await resolver.resolveAddresses("MX.ttl.test.")).toEqual([IP_1, IP6_1]);
    expect(dns.queryCount("mx.ttl.test", "A")).toBe(1);
    expect(dns.queryCount("mx.ttl.test", "AAAA")).toBe(1);

    const fresh = await until(
      () => resolver.resolveAddresses("mx.ttl.test"),
      (addresses) => addresses[0] === IP_2,
    );
    expect(fresh).toEqual([IP_2]);
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(900);
    // Polled every 25 ms, yet one query per type after the first: none while the answer was fresh.
    expect(dns.queryCount("mx.ttl.test", "A")).toBe(2);
    expect(dns.queryCount("mx.ttl.test", "AAAA")).toBe(2);
  });

  it("keeps an answer no longer than cacheSeconds, whatever its TTL, and an MX answer as long", async () => {
    const resolver = resolverWith({ cacheSeconds: 1 });
    dns.setRecords("long.test", [{ type: "MX", priority: 10, exchange: "mx1.long.test" }]);
    dns.setRecords("mx1.long.test", [{ type: "A", address: IP_1, ttl: 3600 }]);
    expect(hostNames(await resolver.resolveRoute("long.test"))).toEqual(["mx1.long.test"]);
    expect(await resolver.resolveAddresses("mx1.long.test")).toEqual([IP_1]);
    const answeredAt = Date.now();
    dns.setRecords("long.test", [{ type: "MX", priority: 10, exchange: "mx2.long.test" }]);
    dns.setRecords("mx1.long.test", [{ type: "A", address: IP_2, ttl: 3600 }]);
    expect(hostNames(await resolver.resolveRoute("long.test"))).toEqual(["mx1.long.test"]);

    const route = await until(
      () => resolver.resolveRoute("long.test"),
      (r) => hostNames(r)[0] === "mx2.long.test",
    );
    expect(hostNames(route)).toEqual(["mx2.long.test"]);
    const addresses = await until(
      () => resolver.resolveAddresses("mx1.long.test"),
      (a) => a[0] === IP_2,
    );
    expect(addresses).toEqual([IP_2]);
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(900);
    expect(dns.queryCount("long.test", "MX")).toBe(2);
    expect(dns.queryCount("mx1.long.test", "A")).toBe(2);
  });

  it("shuffles equal-preference MX hosts on every call, from the cache too", async () => {
    const resolver = resolverWith({ cacheSeconds: 300 });
    dns.setRecords("spread.test", [
      { type: "MX", priority: 10, exchange: "a.spread.test" },
      { type: "MX", priority: 10, exchange: "b.spread.test" },
      { type: "MX", priority: 20, exchange: "backup.spread.test" },
    ]);
    const firsts = new Set<string>();
    for (let i = 0; i < 50; i += 1) {
      const hosts = hostNames(await resolver.resolveRoute("spread.test"));
      expect(hosts[2]).toBe("backup.spread.test");
      firsts.add(hosts[0] ?? "");
    }
    expect([...firsts].sort()).toEqual(["a.spread.test", "b.spread.test"]);
    expect(dns.queryCount("spread.test", "MX")).toBe(1);
  });

  it.each([300, 0])(
    "makes one query for 20 concurrent lookups of one name (cacheSeconds %i)",
    async (cacheSeconds) => {
      const resolver = resolverWith({ cacheSeconds });
      dns.setRecords("burst.test", [{ type: "MX", priority: 10, exchange: "mx.burst.test" }]);
      dns.setRecords("mx.burst.test", [{ type: "A", address: IP_1 }]);
      const routes = await Promise.all(Array.from({ length: 20 }, () => resolver.resolveRoute("burst.test")));
      const addresses = await Promise.all(
        Array.from({ length: 20 }, () => resolver.resolveAddresses("mx.burst.test")),
      );
      expect(routes.map(hostNames)).toEqual(Array(20).fill(["mx.burst.test"]));
      expect(addresses).toEqual(Array(20).fill([IP_1]));
      expect(dns.queryCount("burst.test", "MX")).toBe(1);
      expect(dns.queryCount("mx.burst.test", "A")).toBe(1);
      expect(dns.queryCount("mx.burst.test", "AAAA")).toBe(1);
    },
  );

  it.each(["servfail", "timeout"] as const)("never keeps a temporary failure (%s)", async (fault) => {
    const resolver = resolverWith({ cacheSeconds: 300, timeoutMs: 200 });
    dns.setRecords("flaky.test", [{ type: "MX", priority: 10, exchange: "mx.flaky.test" }]);
    dns.setRecords("mx.flaky.test", [{ type: "A", address: IP_1 }]);
    dns.setFault("flaky.test", fault);
    dns.setFault("mx.flaky.test", fault);
    expect(await resolver.resolveRoute("flaky.test")).toMatchObject({ kind: "failed", status: "temporary" });
    await expect(resolver.resolveAddresses("mx.flaky.test")).rejects.toThrow();
    const mxQueries = dns.queryCount("flaky.test", "MX");
    const aQueries = dns.queryCount("mx.flaky.test", "A");

    dns.setFault("flaky.test", undefined);
    dns.setFault("mx.flaky.test", undefined);
    expect(hostNames(await resolver.resolveRoute("flaky.test"))).toEqual(["mx.flaky.test"]);
    expect(await resolver.resolveAddresses("mx.flaky.test")).toEqual([IP_1]);
    expect(dns.queryCount("flaky.test", "MX")).toBe(mxQueries + 1);
    expect(dns.queryCount("mx.flaky.test", "A")).toBe(aQueries + 1);
  });

  it.each<{ answer: string; publish: (name: string) => void; says: RegExp }>([
    { answer: "NXDOMAIN", publish: (name) => dns.removeName(name), says: /does not exist \(NXDOMAIN\)/ },
    {
      answer: "a null MX",
      publish: (name) => dns.setRecords(name, [{ type: "MX", priority: 0, exchange: "." }]),
      says: /accepts no mail \(null MX\)/,
    },
    {
      answer: "no records",
      publish: (name) => dns.setRecords(name, [{ type: "TXT", strings: ["v=spf1 -all"] }]),
      says: /has no MX and no address record/,
    },
  ])("keeps $answer no longer than the negative cap", async ({ publish, says }) => {
    // Both caps: the negative one below the maximum, and the maximum below the default negative one (60 s).
    for (const options of [{ cacheSeconds: 300, negativeCacheSeconds: 1 }, { cacheSeconds: 1 }]) {
      const resolver = resolverWith(options);
      const domain = `neg-${options.cacheSeconds}.test`;
      publish(domain);
      const first = await resolver.resolveRoute(domain);
      expect(first).toMatchObject({ kind: "failed", status: "permanent" });
      expect(first.kind === "failed" && first.response).toMatch(says);
      const answeredAt = Date.now();
      const queries = dns.queryCount(domain);

      dns.setRecords(domain, [{ type: "MX", priority: 10, exchange: `mx.${domain}` }]);
      expect(await resolver.resolveRoute(domain)).toEqual(first);
      expect(dns.queryCount(domain)).toBe(queries);
      const route = await until(
        () => resolver.resolveRoute(domain),
        (r) => r.kind === "hosts",
      );
      expect(hostNames(route)).toEqual([`mx.${domain}`]);
      expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(900);
      expect(dns.queryCount(domain, "MX")).toBe(2);
    }
  });

  it("asks for every lookup when cacheSeconds is 0, answers and negative answers alike", async () => {
    const resolver = resolverWith({ cacheSeconds: 0 });
    dns.setRecords("nocache.test", [{ type: "MX", priority: 10, exchange: "mx.nocache.test" }]);
    dns.setRecords("mx.nocache.test", [{ type: "A", address: IP_1 }]);
    for (let i = 0; i < 3; i += 1) {
      expect(hostNames(await resolver.resolveRoute("nocache.test"))).toEqual(["mx.nocache.test"]);
      expect(await resolver.resolveAddresses("mx.nocache.test")).toEqual([IP_1]);
      expect(await resolver.resolveRoute("gone.test")).toMatchObject({ kind: "failed", status: "permanent" });
    }
    expect(dns.queryCount("nocache.test", "MX")).toBe(3);
    expect(dns.queryCount("mx.nocache.test", "A")).toBe(3);
    expect(dns.queryCount("mx.nocache.test", "AAAA")).toBe(3);
    expect(dns.queryCount("gone.test", "MX")).toBe(3);
  });
});
