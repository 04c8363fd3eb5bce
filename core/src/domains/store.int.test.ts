import { createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { MailroomError } from "../errors/index.ts";
import { DecryptionError, generateKek } from "./crypto.ts";
import { deleteDomain } from "./delete.ts";
import { recheckDueDomains, verifyDomain } from "./recheck.ts";
import { claimDomainsDueForRecheck, RECHECK_VERIFIED_MS } from "./schedule.ts";
import { loadSigningKeys } from "./signing-keys.ts";
import { createDomain, findVerifiedDomain, getDomain, listDomains } from "./store.ts";
import type { DomainRecord } from "./types.ts";
import { makeTxtLookup } from "./verify.ts";

let db: TestDatabase;
let dns: TestDnsServer;
let deps: Parameters<typeof verifyDomain>[0];
const kek = generateKek();
const T0 = new Date("2031-01-01T00:00:00Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  deps = { db: db.pool, lookup: makeTxtLookup({ servers: [dns.address], timeoutMs: 300, tries: 1 }) };
});
afterAll(async () => {
  await dns.close();
  await db.drop();
});

function publish(domain: DomainRecord, purposes = ["dkim", "spf", "dmarc"]): void {
  for (const record of domain.records)
    if (purposes.includes(record.purpose)) dns.setTxt(record.name, record.strings);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof MailroomError) return error.code;
    throw error;
  }
}

describe("domains on Postgres", () => {
  it("creates a pending domain with its records and never stores the private key in clear", async () => {
    const domain = await createDomain(db.pool, kek, {
      account: "acme",
      name: " Mail.Acme.TEST. ",
      algorithms: ["ed25519"],
      now: T0,
    });
    expect(domain).toMatchObject({
      name: "mail.acme.test",
      status: "pending",
      returnPathDomain: "bounces.mail.acme.test",
    });
    expect(domain.dkimKeys.map((k) => k.algorithm)).toEqual(["rsa", "ed25519"]);
    expect(domain.records.map((r) => [r.purpose, r.name, r.required, r.status])).toEqual([
      ["dkim", `${domain.dkimKeys[0]?.selector}._domainkey.mail.acme.test`, true, "pending"],
      ["dkim", `${domain.dkimKeys[1]?.selector}._domainkey.mail.acme.test`, true, "pending"],
      ["spf", "bounces.mail.acme.test", false, "pending"],
      ["dmarc", "_dmarc.mail.acme.test", false, "pending"],
    ]);
    expect(domain.records[0]?.strings.length).toBe(2);
    expect(domain.records[0]?.strings.every((s) => Buffer.byteLength(s) <= 255)).toBe(true);

    const keys = await loadSigningKeys(db.pool, kek, domain);
    const { rows } = await db.pool.query("select * from dkim_keys where domain_id = $1", [domain.id]);
    expect(rows).toHaveLength(2);
    for (const [i, key] of keys.entries()) {
      // The decrypted key is the private half of what DNS publishes.
      const der = createPublicKey(key.privateKey).export({ type: "spki", format: "der" });
      const published = domain.dkimKeys[i]?.publicKey ?? "";
      expect(key.algorithm === "rsa" ? der.toString("base64") : der.subarray(-32).toString("base64")).toBe(
        published,
      );
      const privateDer = key.privateKey.export({ type: "pkcs8", format: "der" });
      const privatePem = key.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      const secretPart = privateDer.subarray(privateDer.length - 32);
      for (const row of rows) {
        expect(row.private_key_encrypted.includes(secretPart)).toBe(false);
        expect(JSON.stringify(row)).not.toContain(privatePem.split("\n")[2]);
        expect(JSON.stringify(row)).not.toContain(secretPart.toString("base64"));
      }
    }
  });

  it("refuses a second copy in one account and a name that is no domain", async () => {
    await createDomain(db.pool, kek, { account: "acme", name: "dup.acme.test" });
    expect(await codeOf(createDomain(db.pool, kek, { account: "acme", name: "DUP.acme.test" }))).toBe(
      "conflict",
    );
    for (const name of [
      "",
      "localhost",
      "-bad.test",
      "a..test",
      "x.123",
      "under_score.test",
      `${"a".repeat(64)}.test`,
    ]) {
      expect(await codeOf(createDomain(db.pool, kek, { account: "acme", name })), name).toBe(
        "validation_error",
      );
    }
    const idn = await createDomain(db.pool, kek, { account: "acme", name: "bücher.test" });
    expect(idn.name).toBe("xn--bcher-kva.test");
    expect((await getDomain(db.pool, "acme", "BÜCHER.test"))?.id).toBe(idn.id);
  });

  it("keeps accounts apart when reading, listing and deleting", async () => {
    const domain = await createDomain(db.pool, kek, { account: "tenant-a", name: "apart.test" });
    expect(await getDomain(db.pool, "tenant-b", "apart.test")).toBeUndefined();
    expect(await listDomains(db.pool, "tenant-b")).toEqual([]);
    expect((await listDomains(db.pool, "tenant-a")).map((d) => d.id)).toEqual([domain.id]);
    expect(await deleteDomain(db.pool, "tenant-b", "apart.test")).toBe(false);
    expect(await deleteDomain(db.pool, "tenant-a", "apart.test")).toBe(true);
    expect(await deleteDomain(db.pool, "tenant-a", "apart.test")).toBe(false);
    const { rows } = await db.pool.query("select count(*)::int as n from dkim_keys where domain_id = $1", [
      domain.id,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it("refuses to decrypt an altered, moved or foreign-KEK key", async () => {
    const one = await createDomain(db.pool, kek, {
      account: "acme",
      name: "tamper.test",
      algorithms: ["ed25519"],
    });
    await expect(loadSigningKeys(db.pool, generateKek(), one)).rejects.toThrow(
      /different key-encryption key/,
    );
    await db.pool.query(
      `update dkim_keys k set private_key_encrypted = o.private_key_encrypted
       from dkim_keys o where k.domain_id = $1 and o.domain_id = $1 and k.id <> o.id and k.algorithm = 'rsa'`,
      [one.id],
    );
    await expect(loadSigningKeys(db.pool, kek, one)).rejects.toThrow(DecryptionError);
    const two = await createDomain(db.pool, kek, { account: "acme", name: "tamper2.test" });
    await db.pool.query(
      `update dkim_keys set private_key_encrypted = overlay(private_key_encrypted placing '\\x00' from 60 for 1)
       where domain_id = $1`,
      [two.id],
    );
    await expect(loadSigningKeys(db.pool, kek, two)).rejects.toThrow(/altered or moved/);
  });
});

describe("verification lifecycle", () => {
  it("verifies, survives a DNS outage, and fails when the DKIM record disappears", async () => {
    const domain = await createDomain(db.pool, kek, { account: "shop", name: "shop.test", now: T0 });
    expect(await findVerifiedDomain(db.pool, "shop", "orders@shop.test")).toBeUndefined();
    publish(domain, ["dkim"]);

    const first = await verifyDomain(deps, domain, () => minutes(1));
    expect(first?.transition).toBe("verified");
    expect(first?.domain).toMatchObject({
      status: "verified",
      lastCheckedAt: minutes(1),
      verifiedAt: minutes(1),
    });
    expect(first?.domain.nextCheckAt).toEqual(new Date(minutes(1).getTime() + RECHECK_VERIFIED_MS));
    expect(first?.domain.records.map((r) => r.status)).toEqual(["verified", "failed", "failed"]);
    expect(first?.domain.records[1]?.reason).toContain("bounces.shop.test");
    expect((await findVerifiedDomain(db.pool, "shop", "Orders@SHOP.test"))?.id).toBe(domain.id);
    expect(await findVerifiedDomain(db.pool, "other", "orders@shop.test")).toBeUndefined();
    expect(await findVerifiedDomain(db.pool, "shop", "orders@sub.shop.test")).toBeUndefined();

    const dkimName = domain.records[0]?.name ?? "";
    dns.setFault(dkimName, "servfail");
    const outage = await verifyDomain(deps, domain, () => minutes(2));
    expect(outage?.transition).toBeUndefined();
    expect(outage?.domain.status).toBe("verified");
    expect(outage?.domain.records[0]).toMatchObject({
      status: "temporary_failure",
      lastCheckedAt: minutes(2),
    });
    dns.setFault(dkimName, undefined);

    // The hourly background pass notices the record is gone.
    dns.removeName(dkimName);
    // Other tests' domains are due too; only this one's outcome matters here.
    const early = await recheckDueDomains(deps, { limit: 100, now: () => minutes(30) });
    expect(early.find((o) => o.domain.id === domain.id)).toBeUndefined();
    const due = await recheckDueDomains(deps, { limit: 100, now: () => minutes(63) });
    const gone = due.find((o) => o.domain.id === domain.id);
    expect(gone?.transition).toBe("failed");
    expect(gone?.domain.status).toBe("failed");
    expect(gone?.domain.verifiedAt).toBeNull();
    expect(gone?.domain.records[0]?.reason).toContain("found no TXT record");
    expect(await findVerifiedDomain(db.pool, "shop", "orders@shop.test")).toBeUndefined();
  });

  it("lets only one account hold a name verified, and hands it over when the holder's record goes", async () => {
    const a = await createDomain(db.pool, kek, { account: "first", name: "contested.test", now: T0 });
    const b = await createDomain(db.pool, kek, { account: "second", name: "contested.test", now: T0 });
    publish(a, ["dkim"]);
    publish(b, ["dkim"]);
    expect((await verifyDomain(deps, a, () => minutes(1)))?.domain.status).toBe("verified");
    const refused = await verifyDomain(deps, b, () => minutes(1));
    expect(refused?.domain).toMatchObject({
      status: "failed",
      statusReason: "Another account has already verified this domain.",
    });
    expect(refused?.domain.records[0]?.status).toBe("verified");

    dns.removeName(a.records[0]?.name ?? "");
    expect((await verifyDomain(deps, a, () => minutes(2)))?.domain.status).toBe("failed");
    const takeover = await verifyDomain(deps, b, () => minutes(2));
    expect(takeover).toMatchObject({
      transition: "verified",
      domain: { status: "verified", statusReason: null },
    });
    expect((await findVerifiedDomain(db.pool, "second", "x@contested.test"))?.id).toBe(b.id);
    expect(await findVerifiedDomain(db.pool, "first", "x@contested.test")).toBeUndefined();
  });

  it("reports a pending domain's DNS outage as temporary_failure and rechecks it sooner", async () => {
    const domain = await createDomain(db.pool, kek, { account: "slow", name: "slow.test", now: T0 });
    dns.setFault(domain.records[0]?.name ?? "", "timeout");
    const outcome = await verifyDomain(deps, domain, () => minutes(1));
    expect(outcome).toMatchObject({ transition: undefined, domain: { status: "temporary_failure" } });
    expect(outcome?.domain.nextCheckAt).toEqual(minutes(6));
  });

  it("hands each due domain to one claimer only", async () => {
    const now = minutes(10_000);
    const first = await claimDomainsDueForRecheck(db.pool, { now, limit: 100 });
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((d) => d.nextCheckAt.getTime() > now.getTime())).toBe(true);
    expect(await claimDomainsDueForRecheck(db.pool, { now, limit: 100 })).toEqual([]);
  });
});
