import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../../test/support/dns-server.ts";
import { createEndpoint } from "../../webhooks/store.ts";
import { splitTxtValue } from "../dkim.ts";
import { verifyDomain } from "../recheck.ts";
import { loadSigningKeys } from "../signing-keys.ts";
import { createDomain, getDomainById } from "../store.ts";
import type { DomainRecord } from "../types.ts";
import { makeTxtLookup } from "../verify.ts";
import { requestRotation, setRotationInterval } from "./request.ts";
import { type RotationDeps, rotateDomain, rotateDueDomains } from "./run.ts";

const KEK = Buffer.alloc(32, 7);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

let db: TestDatabase;
let dns: TestDnsServer;
let deps: RotationDeps;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  deps = {
    db: db.pool,
    kek: KEK,
    lookup: makeTxtLookup({ servers: [dns.address], timeoutMs: 500, tries: 1 }),
    policy: { settleMs: HOUR, retireAfterMs: 12 * DAY, recheckMs: 10 * 60_000 },
  };
});
afterAll(async () => {
  await dns?.close();
  await db?.drop();
});

/** Publishes exactly the DKIM records the domain lists now (as the operator's DNSEndpoint would). */
function publishDkim(domain: DomainRecord): void {
  for (const r of domain.records.filter((r) => r.purpose === "dkim"))
    dns.setTxt(r.name, splitTxtValue(r.value));
}

async function verifiedDomain(name: string, algorithms: ("rsa" | "ed25519")[] = ["rsa"]) {
  const created = await createDomain(db.pool, KEK, { account: "shop", name, algorithms, now: T0 });
  publishDkim(created);
  await markDomainVerified(db.pool, created.id);
  return created;
}

const reload = async (id: string) => {
  const domain = await getDomainById(db.pool, id);
  if (!domain) throw new Error("domain vanished");
  return domain;
};
const keysBy = (domain: DomainRecord, state: string) =>
  domain.dkimKeys.filter((k) => k.state === state).map((k) => k.selector);
const signingSelectors = async (domain: DomainRecord) =>
  (await loadSigningKeys(db.pool, KEK, domain)).map((k) => `${k.algorithm}:${k.selector}`);

describe("DKIM rotation against Postgres and a real DNS server", () => {
  it("rotates on schedule without ever signing with a key DNS does not serve", async () => {
    const first = await verifiedDomain("sched.rot.test", ["rsa", "ed25519"]);
    const [oldRsa, oldEd] = [keysBy(first, "active")[0], keysBy(first, "active")[1]];
    await createEndpoint(db.pool, { account: "shop", url: "https://hooks.example.test/rot", events: [] });

    const early = await rotateDomain(deps, first.id, at(100 * DAY));
    expect(early?.applied).toEqual([]);
    expect(early?.last.nextCheckAt).toEqual(at(180 * DAY));

    // Due: a pending pair under new selectors; nothing published yet, so signing stays on the old pair.
    const started = await rotateDomain(deps, first.id, at(180 * DAY));
    expect(started?.applied.map((s) => s.kind)).toEqual(["generate"]);
    let domain = await reload(first.id);
    const pending = keysBy(domain, "pending");
    expect(pending).toHaveLength(2);
    expect(pending).not.toContain(oldRsa);
    expect(
      domain.dkimKeys
        .filter((k) => k.state === "pending")
        .map((k) => k.algorithm)
        .sort(),
    ).toEqual(["ed25519", "rsa"]);
    expect(domain.records.filter((r) => r.purpose === "dkim" && r.required).map((r) => r.name)).toEqual(
      expect.arrayContaining([expect.stringContaining(oldRsa ?? "?")]),
    );
    expect(await signingSelectors(domain)).toEqual([`rsa:${oldRsa}`, `ed25519:${oldEd}`]);
    expect(started?.last.step).toMatchObject({ kind: "wait" });

    // A recheck meanwhile neither drops the pending records nor unverifies the domain.
    const rechecked = await verifyDomain({ db: db.pool, lookup: deps.lookup, records: {} }, domain);
    expect(rechecked?.domain.status).toBe("verified");
    expect(keysBy(rechecked?.domain ?? domain, "pending")).toEqual(pending);

    // Published: served, then settled, then signing moves; the old pair retires, still published.
    publishDkim(domain);
    const served = await rotateDomain(deps, first.id, at(180 * DAY + 60_000));
    expect(served?.applied).toEqual([]);
    const switched = await rotateDomain(deps, first.id, at(180 * DAY + 60_000 + HOUR));
    expect(switched?.applied.map((s) => s.kind)).toEqual(["activate"]);
    domain = await reload(first.id);
    expect(keysBy(domain, "active").sort()).toEqual([...pending].sort());
    expect(keysBy(domain, "retiring").sort()).toEqual([oldRsa, oldEd].sort());
    const signing = await signingSelectors(domain);
    expect(signing).toHaveLength(2);
    expect(signing[0]).toMatch(/^rsa:/);
    expect(signing.every((s) => pending.includes(s.split(":")[1] ?? ""))).toBe(true);
    const retiring = domain.dkimKeys.find((k) => k.state === "retiring");
    expect(retiring?.withdrawAt).toEqual(at(180 * DAY + 60_000 + HOUR + 12 * DAY));

    // Withdrawn at its date: keys and records gone, the new pair alone.
    expect((await rotateDomain(deps, first.id, at(185 * DAY)))?.applied).toEqual([]);
    const withdrawn = await rotateDomain(deps, first.id, at(193 * DAY));
    expect(withdrawn?.applied.map((s) => s.kind)).toEqual(["withdraw"]);
    domain = await reload(first.id);
    expect(domain.dkimKeys.map((k) => k.state)).toEqual(["active", "active"]);
    expect(domain.records.filter((r) => r.purpose === "dkim").map((r) => r.required)).toEqual([true, true]);
    expect(domain.records.some((r) => r.name.startsWith(`${oldRsa}.`))).toBe(false);
    expect(domain.dkimRotation.nextRotationAt).toEqual(at(180 * DAY + 60_000 + HOUR + 180 * DAY));

    const { rows: events } = await db.pool.query<{ type: string }>(
      `select type from webhook_events where account = 'shop' order by id`,
    );
    expect(events.map((e) => e.type)).toEqual([
      "domain.dkim_rotation_started",
      "domain.dkim_rotated",
      "domain.dkim_key_withdrawn",
    ]);
  });

  it("does not switch while DNS serves another key at the new selector", async () => {
    const first = await verifiedDomain("wrong.rot.test");
    await requestRotation(db.pool, first.id, { compromised: false, now: at(DAY) });
    await rotateDomain(deps, first.id, at(DAY));
    const domain = await reload(first.id);
    const record = domain.records.find((r) => r.purpose === "dkim" && !r.required);
    dns.setTxt(record?.name ?? "", ["v=DKIM1; k=rsa; p=AAAA"]);
    expect((await rotateDomain(deps, first.id, at(10 * DAY)))?.applied).toEqual([]);
    const after = await reload(first.id);
    expect(after.dkimKeys.find((k) => k.state === "pending")?.servedAt).toBeNull();
    expect(after.records.find((r) => r.name === record?.name)?.reason).toContain("does not match");
  });

  it("counts an annotation's request once, and absorbs one asked during a rotation", async () => {
    const first = await verifiedDomain("token.rot.test");
    const ask = (token: string) =>
      requestRotation(db.pool, first.id, { compromised: false, token, now: at(DAY) });
    expect(await ask("one")).toBe("requested");
    expect(await ask("one")).toBe("already_handled");
    await rotateDomain(deps, first.id, at(DAY));
    expect(await ask("two")).toBe("already_rotating");
    expect((await reload(first.id)).dkimRotation.requestedAt).toBeNull();
  });

  it("on a compromise signs with a new key at once and withdraws every old one", async () => {
    const first = await verifiedDomain("stolen.rot.test");
    const old = keysBy(first, "active")[0];
    expect(await requestRotation(db.pool, first.id, { compromised: true, now: at(DAY) })).toBe("requested");
    const outcome = await rotateDomain(deps, first.id, at(DAY));
    expect(outcome?.applied.map((s) => s.kind)).toEqual(["replace"]);
    const domain = await reload(first.id);
    expect(domain.dkimKeys.map((k) => k.state)).toEqual(["active"]);
    expect(keysBy(domain, "active")).not.toContain(old);
    expect(await signingSelectors(domain)).toEqual([`rsa:${keysBy(domain, "active")[0]}`]);
    expect(domain.records.some((r) => r.name.startsWith(`${old}.`))).toBe(false);
  });

  it("the job claims only due domains, and an interval of 0 stops scheduled rotation", async () => {
    const off = await verifiedDomain("off.rot.test");
    expect(await setRotationInterval(db.pool, off.id, 0)).toBe(true);
    await expect(setRotationInterval(db.pool, off.id, -1)).rejects.toMatchObject({
      code: "validation_error",
    });
    const outcomes = await rotateDueDomains(deps, { limit: 100, now: () => at(400 * DAY) });
    const mine = outcomes.find((o) => o.domainId === off.id);
    expect(mine?.applied).toEqual([]);
    expect(mine?.last.step).toEqual({ kind: "wait", reason: "scheduled rotation is off" });
    const again = await rotateDueDomains(deps, { limit: 100, now: () => at(400 * DAY) });
    expect(again.find((o) => o.domainId === off.id)).toBeUndefined();
  });
});
