import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { dkimTxtValue, generateDkimKey, splitTxtValue } from "./dkim.ts";
import { buildDnsRecords, dmarcValue, spfValue } from "./records.ts";
import type { DnsRecordSpec } from "./types.ts";
import { checkRecord, checkRecords, deriveDomainStatus, makeTxtLookup } from "./verify.ts";

const DOMAIN = "acme.test";
const rsa = await generateDkimKey("rsa");
const other = await generateDkimKey("rsa");
const specs = buildDnsRecords(DOMAIN, `bounces.${DOMAIN}`, [{ selector: "mr-1", ...rsa }], {
  spfMechanisms: ["include:_spf.relay.test"],
});
const [dkim, spf, dmarc] = specs as [DnsRecordSpec, DnsRecordSpec, DnsRecordSpec];

let dns: TestDnsServer;
let lookup: ReturnType<typeof makeTxtLookup>;

function publishAll(): void {
  for (const spec of specs) dns.setTxt(spec.name, splitTxtValue(spec.value));
}

beforeAll(async () => {
  dns = await startDnsServer();
  lookup = makeTxtLookup({ servers: [dns.address], timeoutMs: 300, tries: 1 });
});
afterAll(async () => {
  await dns.close();
});
beforeEach(() => {
  for (const spec of specs) {
    dns.removeName(spec.name);
    dns.setFault(spec.name, undefined);
  }
});

describe("record verification against a real DNS server", () => {
  it("verifies published records, the DKIM key split over two TXT strings", async () => {
    publishAll();
    const checks = await checkRecords(lookup, specs);
    expect(checks.map((c) => [c.purpose, c.status, c.reason])).toEqual([
      ["dkim", "verified", null],
      ["spf", "verified", null],
      ["dmarc", "verified", null],
    ]);
    expect(deriveDomainStatus("pending", checks)).toBe("verified");
    expect(dns.queryCount(dkim.name)).toBeGreaterThan(0);
  });

  it("fails a DKIM record with another key, saying what was expected and found", async () => {
    dns.setTxt(dkim.name, splitTxtValue(dkimTxtValue("rsa", other.publicKey)));
    const check = await checkRecord(lookup, dkim);
    expect(check.status).toBe("failed");
    expect(check.reason).toBe(
      `The public key at ${dkim.name} does not match: expected p=…${rsa.publicKey.slice(-24)}, found p=…${other.publicKey.slice(-24)}.`,
    );
    dns.setTxt(dkim.name, ["v=DKIM1; k=rsa; p="]);
    expect((await checkRecord(lookup, dkim)).reason).toContain("found an empty p= (revoked key)");
  });

  it("fails a missing record (NXDOMAIN) and a name without TXT data (NODATA)", async () => {
    const missing = await checkRecord(lookup, dkim);
    expect(missing).toMatchObject({ status: "failed" });
    expect(missing.reason).toContain("found no TXT record");
    dns.setRecords(dkim.name, [{ type: "A", address: "192.0.2.1" }]);
    expect(await checkRecord(lookup, dkim)).toMatchObject({ status: "failed" });
  });

  it("fails the wrong key type, duplicate keys, a missing SPF mechanism and a second DMARC record", async () => {
    dns.setTxt(dkim.name, [`v=DKIM1; k=ed25519; p=${rsa.publicKey.slice(0, 40)}`]);
    expect((await checkRecord(lookup, dkim)).reason).toContain("Expected k=rsa");
    dns.setTxt(dkim.name, splitTxtValue(dkim.value), splitTxtValue(dkimTxtValue("rsa", other.publicKey)));
    expect((await checkRecord(lookup, dkim)).reason).toContain("found 2");
    dns.setTxt(spf.name, ["v=spf1 mx ~all"]);
    const spfCheck = await checkRecord(lookup, spf);
    expect(spfCheck.status).toBe("failed");
    expect(spfCheck.reason).toContain("lacks include:_spf.relay.test");
    dns.setTxt(dmarc.name, [dmarcValue()], ["v=DMARC1; p=reject"]);
    expect((await checkRecord(lookup, dmarc)).reason).toContain("found 2 DMARC records");
  });

  it("accepts the owner's own DMARC policy and extra SPF mechanisms", async () => {
    dns.setTxt(dmarc.name, ["v=DMARC1; p=reject; rua=mailto:d@acme.test"]);
    dns.setTxt(spf.name, [`${spfValue({ spfMechanisms: ["ip4:192.0.2.0/24", "include:_spf.relay.test"] })}`]);
    expect((await checkRecords(lookup, [spf, dmarc])).map((c) => c.status)).toEqual(["verified", "verified"]);
  });

  it("reports SERVFAIL, REFUSED and a silent server as temporary_failure, never failed", async () => {
    publishAll();
    for (const fault of ["servfail", "refused", "timeout"] as const) {
      dns.setFault(dkim.name, fault);
      const check = await checkRecord(lookup, dkim);
      expect(check.status, fault).toBe("temporary_failure");
      expect(check.reason).toMatch(/failed \(E[A-Z]+\); it will be retried/);
    }
    const checks = await checkRecords(lookup, specs);
    expect(deriveDomainStatus("pending", checks)).toBe("temporary_failure");
    // An outage does not take a verified domain's mail away.
    expect(deriveDomainStatus("verified", checks)).toBe("verified");
  });

  it("notices a record that disappears after verification", async () => {
    publishAll();
    expect(deriveDomainStatus("pending", await checkRecords(lookup, specs))).toBe("verified");
    dns.removeName(dkim.name);
    const checks = await checkRecords(lookup, specs);
    expect(deriveDomainStatus("verified", checks)).toBe("failed");
  });

  it("lets SPF and DMARC advise without deciding", async () => {
    dns.setTxt(dkim.name, splitTxtValue(dkim.value));
    const checks = await checkRecords(lookup, specs);
    expect(checks.map((c) => c.status)).toEqual(["verified", "failed", "failed"]);
    expect(deriveDomainStatus("pending", checks)).toBe("verified");
  });
});
