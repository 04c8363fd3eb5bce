import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../../../test/support/dns-server.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

interface KeyBody {
  selector: string;
  algorithm: string;
  state: string;
  activatedAt: string | null;
  withdrawAt: string | null;
}
interface DomainBody {
  status: string;
  dkimKeys: KeyBody[];
  dkimRotation: { intervalDays: number; nextRotationAt: string | null; requestedAt: string | null };
  records: Array<{ purpose: string; name: string; value: string; strings: string[]; required: boolean }>;
}

let db: TestDatabase;
let dns: TestDnsServer;
let api: ApiStack;
let key: string;
let sendKey: string;
let otherKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  api = await startApiStack(db, { env: { MAILROOM_DNS_SERVERS: dns.address } });
  key = (await createKey(db.pool, { account: "team-a", scopes: ["domains"], expires: "never" })).fullKey;
  sendKey = (await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" })).fullKey;
  otherKey = (await createKey(db.pool, { account: "team-b", scopes: ["domains"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await api?.close();
  await dns?.close();
  await db?.drop();
});

const body = (res: { json: unknown }) => res.json as DomainBody;
const publish = (domain: DomainBody) => {
  for (const r of domain.records.filter((r) => r.purpose === "dkim")) dns.setTxt(r.name, r.strings);
};

async function verifiedDomain(name: string, extra: Record<string, unknown> = {}): Promise<DomainBody> {
  const created = await api.request("POST", "/v1/domains", { key, body: { name, ...extra } });
  expect(created.status, created.text).toBe(201);
  publish(body(created));
  const verified = await api.request("POST", `/v1/domains/${name}/verify`, { key });
  expect(body(verified).status).toBe("verified");
  return body(verified);
}

describe("DKIM rotation through the API", () => {
  it("shows the rotation interval, sets it at creation and changes it with PATCH", async () => {
    const created = await api.request("POST", "/v1/domains", {
      key,
      body: { name: "interval.rot.test", dkimRotation: { intervalDays: 90 } },
    });
    expect(created.status, created.text).toBe(201);
    const domain = body(created);
    expect(domain.dkimRotation.intervalDays).toBe(90);
    expect(domain.dkimKeys.map((k) => k.state)).toEqual(["active"]);
    const activated = Date.parse(domain.dkimKeys[0]?.activatedAt ?? "");
    expect(Date.parse(domain.dkimRotation.nextRotationAt ?? "")).toBe(activated + 90 * 86_400_000);

    const off = await api.request("PATCH", "/v1/domains/interval.rot.test", {
      key,
      body: { dkimRotation: { intervalDays: 0 } },
    });
    expect(off.status, off.text).toBe(200);
    expect(body(off).dkimRotation).toEqual({ intervalDays: 0, nextRotationAt: null, requestedAt: null });

    for (const bad of [{ intervalDays: -1 }, { intervalDays: 4000 }, { intervalDays: 1.5 }, {}, { x: 1 }]) {
      const res = await api.request("PATCH", "/v1/domains/interval.rot.test", {
        key,
        body: { dkimRotation: bad },
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
  });

  it("rotates now: a pending key under a new selector, listed to publish, signing unchanged", async () => {
    const before = await verifiedDomain("now.rot.test");
    const oldSelector = before.dkimKeys[0]?.selector;
    const res = await api.request("POST", "/v1/domains/now.rot.test/dkim/rotate", { key, body: {} });
    expect(res.status, res.text).toBe(200);
    const after = body(res);
    expect(after.dkimKeys.map((k) => [k.selector === oldSelector, k.state])).toEqual([
      [true, "active"],
      [false, "pending"],
    ]);
    const pending = after.dkimKeys[1]?.selector ?? "";
    const record = after.records.find((r) => r.name.startsWith(`${pending}._domainkey.`));
    expect(record).toMatchObject({ purpose: "dkim", required: false });
    expect(record?.value).toMatch(/^v=DKIM1; k=rsa; p=/);

    const again = await api.request("POST", "/v1/domains/now.rot.test/dkim/rotate", { key, body: {} });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: "conflict", message: expect.stringContaining(pending) });

    // Once DNS serves it a rotate-now answer reflects the lookup: it is served, and waits to settle.
    publish(after);
    const seen = await api.request("POST", "/v1/domains/now.rot.test/verify", { key });
    expect(body(seen).status).toBe("verified");
  });

  it("on a compromise withdraws the old selector at once", async () => {
    const before = await verifiedDomain("leak.rot.test", { algorithms: ["rsa", "ed25519"] });
    const old = before.dkimKeys.map((k) => k.selector);
    const res = await api.request("POST", "/v1/domains/leak.rot.test/dkim/rotate", {
      key,
      body: { compromised: true },
    });
    expect(res.status, res.text).toBe(200);
    const after = body(res);
    expect(after.dkimKeys.map((k) => [k.algorithm, k.state])).toEqual([
      ["rsa", "active"],
      ["ed25519", "active"],
    ]);
    expect(after.dkimKeys.some((k) => old.includes(k.selector))).toBe(false);
    expect(after.records.some((r) => old.some((s) => r.name.startsWith(`${s}.`)))).toBe(false);
  });

  it("refuses an unverified domain, another account's, a wrong scope and a hostile body", async () => {
    await api.request("POST", "/v1/domains", { key, body: { name: "fresh.rot.test" } });
    const unverified = await api.request("POST", "/v1/domains/fresh.rot.test/dkim/rotate", { key, body: {} });
    expect(unverified.status).toBe(422);
    expect(unverified.json.error).toBe("domain_not_verified");

    await verifiedDomain("mine.rot.test");
    const theirs = await api.request("POST", "/v1/domains/mine.rot.test/dkim/rotate", {
      key: otherKey,
      body: {},
    });
    expect(theirs.status).toBe(404);
    const patchTheirs = await api.request("PATCH", "/v1/domains/mine.rot.test", {
      key: otherKey,
      body: { dkimRotation: { intervalDays: 1 } },
    });
    expect(patchTheirs.status).toBe(404);
    const scope = await api.request("POST", "/v1/domains/mine.rot.test/dkim/rotate", {
      key: sendKey,
      body: {},
    });
    expect(scope.status).toBe(403);
    const hostile = await api.request("POST", "/v1/domains/mine.rot.test/dkim/rotate", {
      key,
      body: { compromised: "yes", __proto__: { x: 1 } },
    });
    expect(hostile.status).toBe(400);
    expect(hostile.json.error).toBe("validation_error");
    const read = await api.request("GET", "/v1/domains/mine.rot.test", { key });
    expect(body(read).dkimKeys.map((k) => k.state)).toEqual(["active"]);
  });
});

describe("compliance checks on the domain resource", () => {
  it("answers one check per name after a verification, and none before", async () => {
    const created = await api.request("POST", "/v1/domains", { key, body: { name: "checks.rot.test" } });
    expect(created.json.checks).toEqual([]);
    const domain = await verifiedDomain("checks2.rot.test");
    const checks = (domain as unknown as { checks: Array<{ name: string; status: string; reason: string }> })
      .checks;
    expect(checks.map((c) => c.name)).toEqual(["SPF", "DKIM", "DMARC", "BounceMX", "ReverseDNS", "TLS"]);
    expect(checks.find((c) => c.name === "DKIM")?.status).toBe("pass");
    // Only the DKIM records were published here: no DMARC record.
    expect(checks.find((c) => c.name === "DMARC")).toMatchObject({
      status: "fail",
      reason: expect.any(String),
    });
  });
});
