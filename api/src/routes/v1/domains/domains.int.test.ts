import {
  createDomain,
  dkimTxtValue,
  generateDkimKey,
  getDomain,
  loadSigningKeys,
  splitTxtValue,
} from "@mailroom/core/domains";
import { createKey, revokeKey } from "@mailroom/core/keys";
import { createEndpoint } from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import {
  startDnsServer,
  type TestDnsServer,
  type ZoneRecord,
} from "../../../../../test/support/dns-server.ts";
import type { HttpsResponse } from "../../../../../test/support/https.ts";
import { type ApiStack, startApiStack, TEST_KEK } from "../../../../../test/support/stack.ts";

interface RecordBody {
  purpose: string;
  type: string;
  name: string;
  value: string;
  strings: string[];
  zoneFileLine: string;
  required: boolean;
  status: string;
  reason: string | null;
  lastCheckedAt: string | null;
}
interface DomainBody {
  name: string;
  status: string;
  records: RecordBody[];
  dkimKeys: Array<{ selector: string; algorithm: string; publicKey: string }>;
  [field: string]: unknown;
}

let db: TestDatabase;
let dns: TestDnsServer;
let api: ApiStack;
let key: string;
let otherKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  api = await startApiStack(db, {
    env: {
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_INBOUND_MX_HOST: "mx.mailroom.test",
      MAILROOM_SPF_MECHANISMS: "include:_spf.relay.test",
    },
  });
  key = (await createKey(db.pool, { account: "team-a", scopes: ["domains"], expires: "never" })).fullKey;
  otherKey = (await createKey(db.pool, { account: "team-b", scopes: ["domains"], expires: "never" })).fullKey;
});
afterAll(async () => {
  await api.close();
  await dns.close();
  await db.drop();
});

const domainOf = (res: HttpsResponse) => res.json as unknown as DomainBody;

async function create(name: string, extra: Record<string, unknown> = {}, k = key): Promise<DomainBody> {
  const res = await api.request("POST", "/v1/domains", { key: k, body: { name, ...extra } });
  expect(res.status, res.text).toBe(201);
  return domainOf(res);
}

async function verify(name: string, k = key): Promise<DomainBody> {
  const res = await api.request("POST", `/v1/domains/${name}/verify`, { key: k });
  expect(res.status, res.text).toBe(200);
  return domainOf(res);
}

/** Publishes every record as the API told us to, each TXT as the character-strings it gave. */
function publish(domain: DomainBody): void {
  const byName = new Map<string, ZoneRecord[]>();
  for (const record of domain.records) {
    const [priority = "", exchange = ""] = record.value.split(" ");
    byName.set(record.name, [
      ...(byName.get(record.name) ?? []),
      record.type === "MX"
        ? { type: "MX", priority: Number(priority), exchange }
        : { type: "TXT", strings: record.strings },
    ]);
  }
  for (const [name, records] of byName) dns.setRecords(name, records);
}

const dkimRecords = (domain: DomainBody) => domain.records.filter((r) => r.purpose === "dkim");
const statuses = (domain: DomainBody) => domain.records.map((r) => [r.purpose, r.status]);

/** Asserts that no response reveals a DKIM private key: PEM markers, the DER, its secret numbers, the ciphertext. */
async function expectNoPrivateKey(accountName: string, domainName: string, texts: string[]): Promise<void> {
  const stored = await getDomain(db.pool, accountName, domainName);
  if (!stored) throw new Error(`no domain ${domainName}`);
  const keys = await loadSigningKeys(db.pool, TEST_KEK, stored);
  expect(keys.length).toBe(stored.dkimKeys.length);
  const secrets: string[] = [];
  for (const signing of keys) {
    const der = signing.privateKey.export({ type: "pkcs8", format: "der" });
    secrets.push(der.toString("base64"), der.toString("base64").slice(-64), der.toString("hex").slice(-64));
    const jwk = signing.privateKey.export({ format: "jwk" });
    for (const part of [jwk.d, jwk.p, jwk.q]) {
      if (part) secrets.push(part, Buffer.from(part, "base64url").toString("base64"));
    }
  }
  const { rows } = await db.pool.query<{ private_key_encrypted: Buffer }>(
    "select private_key_encrypted from dkim_keys k join domains d on d.id = k.domain_id where d.name = $1",
    [domainName],
  );
  for (const row of rows) secrets.push(row.private_key_encrypted.toString("base64").slice(0, 40));
  expect(secrets.length).toBeGreaterThan(0);
  for (const text of texts) {
    expect(text).not.toMatch(/PRIVATE KEY|private_?key/i);
    for (const secret of secrets) expect(text.includes(secret)).toBe(false);
  }
}

describe("POST /v1/domains", () => {
  it("creates a pending domain with an RSA key and answers the records to publish", async () => {
    const res = await api.request("POST", "/v1/domains", { key, body: { name: "Mail.Acme.TEST." } });
    expect(res.status, res.text).toBe(201);
    const domain = domainOf(res);
    expect(domain).toMatchObject({
      name: "mail.acme.test",
      status: "pending",
      statusReason: null,
      returnPathDomain: "bounces.mail.acme.test",
      lastCheckedAt: null,
      verifiedAt: null,
    });
    const [rsa] = domain.dkimKeys;
    expect(domain.dkimKeys).toHaveLength(1);
    expect(rsa?.algorithm).toBe("rsa");
    expect(rsa?.selector).toMatch(/^mr-\d{6}-[a-z0-9]{6}$/);
    expect(domain.records.map((r) => [r.purpose, r.name, r.required, r.status])).toEqual([
      ["dkim", `${rsa?.selector}._domainkey.mail.acme.test`, true, "pending"],
      ["spf", "bounces.mail.acme.test", false, "pending"],
      ["mx", "bounces.mail.acme.test", false, "pending"],
      ["dmarc", "_dmarc.mail.acme.test", false, "pending"],
    ]);
    const [dkim, spf, mx, dmarc] = domain.records;
    expect(dkim?.value).toBe(`v=DKIM1; k=rsa; p=${rsa?.publicKey}`);
    // The configured SPF mechanisms, and the MX of the bounce domain at the configured host.
    expect(spf?.value).toBe("v=spf1 include:_spf.relay.test ~all");
    expect(mx).toMatchObject({ type: "MX", value: "10 mx.mailroom.test", strings: ["10 mx.mailroom.test"] });
    expect(mx?.zoneFileLine).toBe("bounces.mail.acme.test. 3600 IN MX 10 mx.mailroom.test.");
    expect(dmarc?.value).toMatch(/^v=DMARC1; p=none/);
    for (const record of domain.records.filter((r) => r.type === "TXT")) {
      expect(record.strings.join("")).toBe(record.value);
      for (const s of record.strings) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(255);
      const quoted = record.strings.map((s) => `"${s}"`).join(" ");
      expect(record.zoneFileLine).toBe(`${record.name}. 3600 IN TXT ${quoted}`);
    }
    // A 2048-bit key does not fit one character-string.
    expect(dkim?.strings.length).toBeGreaterThan(1);

    const read = await api.request("GET", "/v1/domains/mail.acme.test", { key });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(res.json);
    const list = await api.request("GET", "/v1/domains", { key });
    expect((list.json.data as DomainBody[]).map((d) => d.name)).toContain("mail.acme.test");
    await expectNoPrivateKey("team-a", "mail.acme.test", [res.text, read.text, list.text]);
  });

  it("adds an Ed25519 key when asked, and refuses other algorithm lists", async () => {
    const domain = await create("dual.acme.test", { algorithms: ["rsa", "ed25519"] });
    expect(domain.dkimKeys.map((k) => k.algorithm)).toEqual(["rsa", "ed25519"]);
    const ed = dkimRecords(domain)[1];
    expect(ed?.value).toBe(`v=DKIM1; k=ed25519; p=${domain.dkimKeys[1]?.publicKey}`);
    expect(ed?.strings).toHaveLength(1);
    publish(domain);
    const verified = await verify("dual.acme.test");
    expect(statuses(verified)).toEqual([
      ["dkim", "verified"],
      ["dkim", "verified"],
      ["spf", "verified"],
      ["mx", "verified"],
      ["dmarc", "verified"],
    ]);
    await expectNoPrivateKey("team-a", "dual.acme.test", [JSON.stringify(domain), JSON.stringify(verified)]);
    for (const algorithms of [["ed25519"], ["dsa"], ["rsa", "rsa"], [], "rsa"]) {
      const res = await api.request("POST", "/v1/domains", {
        key,
        body: { name: "x.acme.test", algorithms },
      });
      expect(res.status, JSON.stringify(algorithms)).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
  });

  it("answers 409 conflict for a name the account already has, in any spelling", async () => {
    await create("twice.acme.test");
    for (const name of ["twice.acme.test", "TWICE.acme.test."]) {
      const res = await api.request("POST", "/v1/domains", { key, body: { name } });
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ error: "conflict", message: expect.stringContaining("twice.acme.test") });
    }
  });

  it("stores an IDN in its xn-- form and finds it by either spelling", async () => {
    const domain = await create("Bücher.acme.test");
    expect(domain.name).toBe("xn--bcher-kva.acme.test");
    expect(domain.records[0]?.name).toMatch(/\._domainkey\.xn--bcher-kva\.acme\.test$/);
    for (const spelling of ["xn--bcher-kva.acme.test", encodeURIComponent("BÜCHER.acme.test")]) {
      const res = await api.request("GET", `/v1/domains/${spelling}`, { key });
      expect(res.status, spelling).toBe(200);
      expect(res.json.name).toBe("xn--bcher-kva.acme.test");
    }
  });

  it("refuses hostile and invalid names with 400 and stores nothing", async () => {
    const hostile = [
      "",
      "localhost",
      "acme",
      "-acme.test",
      "acme-.test",
      "a..acme.test",
      "exa mple.test",
      "*.acme.test",
      "_dmarc.acme.test",
      "acme.test/../etc",
      "acme.test?x=1",
      "acme.test#x",
      "acme.test\\evil.test",
      "<script>.test",
      "acme.test\u0000.evil",
      "acme.test\r\nX-Injected: 1",
      "192.168.0.1",
      `${"a".repeat(64)}.test`,
      `${"abcdefghi.".repeat(25)}test`,
      "'; drop table domains; --.test",
    ];
    for (const name of hostile) {
      const res = await api.request("POST", "/v1/domains", { key, body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
    for (const body of [{}, { name: 7 }, { name: "ok.acme.test", extra: true }, "acme.test"]) {
      const res = await api.request("POST", "/v1/domains", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    for (const path of ["..%2F..%2Fetc", "%3Cscript%3E.test", "a%00b.test", `${"a".repeat(64)}.test`]) {
      const res = await api.request("GET", `/v1/domains/${path}`, { key });
      expect(res.status, path).toBe(400);
      expect(res.json.error).toBe("validation_error");
    }
    const { rows } = await db.pool.query("select name from domains where name like '%ok.acme%'");
    expect(rows).toEqual([]);
  });
});

describe("POST /v1/domains/:domain/verify", () => {
  it("verifies published records through the configured DNS server, record by record", async () => {
    const domain = await create("verified.acme.test");
    publish(domain);
    const before = Date.now();
    const checked = await verify("verified.acme.test");
    expect(checked.status).toBe("verified");
    expect(statuses(checked)).toEqual([
      ["dkim", "verified"],
      ["spf", "verified"],
      ["mx", "verified"],
      ["dmarc", "verified"],
    ]);
    for (const record of checked.records) {
      expect(record.reason).toBeNull();
      expect(Date.parse(String(record.lastCheckedAt))).toBeGreaterThanOrEqual(before - 1000);
    }
    expect(Date.parse(String(checked.lastCheckedAt))).toBeGreaterThanOrEqual(before - 1000);
    expect(checked.verifiedAt).toBe(checked.lastCheckedAt);
    expect(dns.queryCount(dkimRecords(domain)[0]?.name ?? "")).toBeGreaterThan(0);
    const read = await api.request("GET", "/v1/domains/verified.acme.test", { key });
    expect(read.json).toEqual(checked);
  });

  it("fails a domain whose record holds another key, with the reason", async () => {
    const domain = await create("wrong.acme.test");
    publish(domain);
    const dkim = dkimRecords(domain)[0];
    if (!dkim) throw new Error("no DKIM record");
    const stranger = await generateDkimKey("rsa");
    dns.setTxt(dkim.name, splitTxtValue(dkimTxtValue("rsa", stranger.publicKey)));
    dns.removeName("bounces.wrong.acme.test");
    const checked = await verify("wrong.acme.test");
    expect(checked.status).toBe("failed");
    expect(checked.verifiedAt).toBeNull();
    const [dkimCheck, spfCheck] = checked.records;
    expect(dkimCheck?.status).toBe("failed");
    expect(dkimCheck?.reason).toBe(
      `The public key at ${dkim.name} does not match: expected p=…${domain.dkimKeys[0]?.publicKey.slice(-24)}, found p=…${stranger.publicKey.slice(-24)}.`,
    );
    expect(spfCheck?.status).toBe("failed");
    expect(spfCheck?.reason).toContain("found no TXT record");
    const mxCheck = checked.records.find((r) => r.purpose === "mx");
    expect(mxCheck?.status).toBe("failed");
    expect(mxCheck?.reason).toBe(
      'Expected an MX record "10 mx.mailroom.test" at bounces.wrong.acme.test, found no MX record.',
    );
  });

  it("brings an older domain's advisory records up to date on verify: the bounce MX appears", async () => {
    const domain = await create("older.acme.test");
    publish(domain);
    // As a domain created before the bounce MX existed, with the SPF mechanisms of then.
    await db.pool.query(`delete from domain_dns_records where purpose = 'mx'`);
    await db.pool.query(
      `update domain_dns_records set value = 'v=spf1 a mx ~all' where name = 'bounces.older.acme.test'`,
    );
    const checked = await verify("older.acme.test");
    expect(checked.records.filter((r) => !r.required).map((r) => [r.purpose, r.value, r.status])).toEqual([
      ["spf", "v=spf1 include:_spf.relay.test ~all", "verified"],
      ["mx", "10 mx.mailroom.test", "verified"],
      // With a bounce MX the suggested DMARC record sends aggregate reports there (ADR 0045).
      ["dmarc", "v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:dmarc@bounces.older.acme.test", "verified"],
    ]);
  });

  it("reports a SERVFAIL as temporary_failure, never failed", async () => {
    const domain = await create("servfail.acme.test");
    publish(domain);
    const dkimName = dkimRecords(domain)[0]?.name ?? "";
    dns.setFault(dkimName, "servfail");
    try {
      const checked = await verify("servfail.acme.test");
      expect(checked.status).toBe("temporary_failure");
      expect(checked.records[0]?.status).toBe("temporary_failure");
      expect(checked.records[0]?.reason).toMatch(
        /^DNS lookup of .+ failed \(E[A-Z]+\); it will be retried\.$/,
      );
    } finally {
      dns.setFault(dkimName, undefined);
    }
    expect((await verify("servfail.acme.test")).status).toBe("verified");
  });

  it("notices on recheck that a record was removed, and recovers when it is back", async () => {
    const domain = await create("removed.acme.test");
    publish(domain);
    expect((await verify("removed.acme.test")).status).toBe("verified");
    const dkim = dkimRecords(domain)[0];
    if (!dkim) throw new Error("no DKIM record");
    dns.removeName(dkim.name);
    const gone = await verify("removed.acme.test");
    expect(gone.status).toBe("failed");
    expect(gone.verifiedAt).toBeNull();
    expect(gone.records[0]).toMatchObject({
      status: "failed",
      reason: expect.stringContaining("found no TXT"),
    });
    publish(domain);
    expect((await verify("removed.acme.test")).status).toBe("verified");
  });

  it("writes domain.verified and domain.failed events only when an endpoint subscribes", async () => {
    const events = async (account: string) =>
      (
        await db.pool.query<{ type: string; data: Record<string, unknown> }>(
          "select type, data from webhook_events where account = $1 order by id",
          [account],
        )
      ).rows;
    const quietKey = (await createKey(db.pool, { account: "team-c", scopes: ["domains"], expires: "never" }))
      .fullKey;
    publish(await create("quiet.acme.test", {}, quietKey));
    expect((await verify("quiet.acme.test", quietKey)).status).toBe("verified");
    expect(await events("team-c")).toEqual([]);

    await createEndpoint(db.pool, {
      account: "team-c",
      url: "https://hooks.example.test/mailroom",
      events: ["domain.verified", "domain.failed"],
    });
    const loud = await create("loud.acme.test", {}, quietKey);
    publish(loud);
    await verify("loud.acme.test", quietKey);
    dns.removeName(dkimRecords(loud)[0]?.name ?? "");
    await verify("loud.acme.test", quietKey);
    expect(await events("team-c")).toEqual([
      {
        type: "domain.verified",
        data: expect.objectContaining({ domain: "loud.acme.test", status: "verified" }),
      },
      {
        type: "domain.failed",
        data: expect.objectContaining({
          domain: "loud.acme.test",
          status: "failed",
          failedRecords: [{ name: dkimRecords(loud)[0]?.name, reason: expect.stringContaining("no TXT") }],
        }),
      },
    ]);
  });

  it("fails a name another account already verified", async () => {
    const theirs = await create("shared.acme.test", {}, otherKey);
    publish(theirs);
    expect((await verify("shared.acme.test", otherKey)).status).toBe("verified");
    const ours = await create("shared.acme.test");
    publish(ours);
    const checked = await verify("shared.acme.test");
    expect(checked.status).toBe("failed");
    expect(checked.statusReason).toBe("Another account has already verified this domain.");
  });
});

describe("reading and deleting", () => {
  it("serves long names, and answers malformed paths in the error shape", async () => {
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.long.test`;
    const created = await api.request("POST", "/v1/domains", { key, body: { name: long } });
    expect(created.status, created.text).toBe(201);
    const read = await api.request("GET", `/v1/domains/${long}`, { key });
    expect(read.status).toBe(200);
    expect(read.json.name).toBe(long);
    const gone = await api.request("DELETE", `/v1/domains/${long}`, { key });
    expect(gone.status).toBe(204);
    const broken = await api.request("GET", "/v1/domains/%E0%A4%A", { key });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ error: "validation_error", message: expect.any(String) });
  });

  it("deletes a domain with 204; it is then gone and its name free again", async () => {
    const first = await create("gone.acme.test");
    const res = await api.request("DELETE", "/v1/domains/gone.acme.test", { key });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await api.request("GET", "/v1/domains/gone.acme.test", { key })).status).toBe(404);
    const again = await api.request("DELETE", "/v1/domains/gone.acme.test", { key });
    expect(again.status).toBe(404);
    expect(again.json.error).toBe("not_found");
    const { rows } = await db.pool.query("select 1 from dkim_keys where selector = $1", [
      first.dkimKeys[0]?.selector,
    ]);
    expect(rows).toEqual([]);
    const second = await create("gone.acme.test");
    expect(second.dkimKeys[0]?.selector).not.toBe(first.dkimKeys[0]?.selector);
  });

  it("refuses to delete a domain a SendingDomain declares (409 managed_by_operator), and keeps it", async () => {
    const declared = await createDomain(db.pool, TEST_KEK, {
      account: "team-a",
      name: "declared.acme.test",
      managedBy: "operator",
    });
    const res = await api.request("DELETE", "/v1/domains/declared.acme.test", { key });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({
      error: "managed_by_operator",
      message: expect.stringContaining("SendingDomain"),
    });
    expect((await getDomain(db.pool, "team-a", "declared.acme.test"))?.id).toBe(declared.id);
  });

  it("hides another account's domain behind 404 on every route", async () => {
    await create("private.acme.test");
    const list = await api.request("GET", "/v1/domains", { key: otherKey });
    expect((list.json.data as DomainBody[]).map((d) => d.name)).not.toContain("private.acme.test");
    for (const [method, path] of [
      ["GET", "/v1/domains/private.acme.test"],
      ["POST", "/v1/domains/private.acme.test/verify"],
      ["DELETE", "/v1/domains/private.acme.test"],
    ] as const) {
      const res = await api.request(method, path, { key: otherKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error).toBe("not_found");
    }
    expect((await api.request("GET", "/v1/domains/private.acme.test", { key })).status).toBe(200);
  });

  it("needs the domains scope and a live key on every route", async () => {
    await create("scoped.acme.test");
    const sendOnly = (await createKey(db.pool, { account: "team-a", scopes: ["send"], expires: "never" }))
      .fullKey;
    const revoked = await createKey(db.pool, { account: "team-a", scopes: ["domains"], expires: "never" });
    await revokeKey(db.pool, revoked.key.keyId);
    const routes = [
      ["POST", "/v1/domains", { name: "new.acme.test" }],
      ["GET", "/v1/domains", undefined],
      ["GET", "/v1/domains/scoped.acme.test", undefined],
      ["POST", "/v1/domains/scoped.acme.test/verify", undefined],
      ["DELETE", "/v1/domains/scoped.acme.test", undefined],
    ] as const;
    for (const [method, path, body] of routes) {
      const forbidden = await api.request(method, path, { key: sendOnly, body });
      expect(forbidden.status, `${method} ${path}`).toBe(403);
      expect(forbidden.json.error).toBe("insufficient_scope");
      const dead = await api.request(method, path, { key: revoked.fullKey, body });
      expect(dead.status, `${method} ${path}`).toBe(401);
      expect(dead.json.error).toBe("api_key_revoked");
      const anonymous = await api.request(method, path, { body });
      expect(anonymous.status).toBe(401);
    }
    expect((await api.request("GET", "/v1/domains/scoped.acme.test", { key })).status).toBe(200);
    expect((await api.request("GET", "/v1/domains/new.acme.test", { key })).status).toBe(404);
  });
});
