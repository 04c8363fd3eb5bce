import { createHash } from "node:crypto";
import { createTestCa } from "@mailroom/core/tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDirectWorker, timelineUntil, tlsSessionCounts } from "../support/direct-delivery.ts";
import { type DnssecDns, dnssecToolsMissing, startDnssecDns } from "../support/dnssec-dns.ts";
import { freePort } from "../support/ports.ts";
import { type CountingSmtpSink, startCountingSink } from "../support/smtp-sinks.ts";

// Issue 32 item 2 end to end: the real worker task in direct mode behind a validating resolver (unbound, over
// a zone signed at test time and served by nsd), receivers on 127.0.0.x whose certificates come from a CA
// nobody trusts: only their TLSA records (`_<MAILROOM_DIRECT_MX_PORT>._tcp.<mx>`) can vouch for them.
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

let db: TestDatabase;
let dns: DnssecDns;
let direct: Awaited<ReturnType<typeof startDirectWorker>>;
const sinks = new Map<string, CountingSmtpSink>();

beforeAll(async () => {
  if (dnssecToolsMissing.length > 0) return;
  db = await createTestDatabase();
  const ca = await createTestCa("Nobody's CA");
  const stranger = await ca.issue(["unrelated.example"]);
  // One port for every receiver, each on its own loopback address, as MX hosts all listen on 25.
  const port = await freePort();
  const records: string[] = [];
  for (const [name, address] of [
    ["ok", "127.0.0.1"],
    ["bad", "127.0.0.2"],
  ] as const) {
    const cert = await ca.issue(["wrong-name.example"]);
    const sink = await startCountingSink({ host: address, port, starttls: true, ...cert });
    sinks.set(name, sink);
    // bad's record names another key than the one its receiver presents.
    const spki = name === "ok" ? cert.spki : stranger.spki;
    records.push(
      `${name} IN MX 10 mx-${name}`,
      `mx-${name} IN A ${address}`,
      `_${port}._tcp.mx-${name} IN TLSA 3 1 1 ${sha256(spki)}`,
    );
  }
  dns = await startDnssecDns(records);
  direct = await startDirectWorker(db, { dnsServer: dns.address, mxPort: port, dnssecValidating: true });
}, 60_000);
afterAll(async () => {
  await direct?.stop();
  for (const sink of sinks.values()) await sink.close();
  await dns?.close();
  await db?.drop();
});

describe.skipIf(dnssecToolsMissing.length > 0)("DANE (RFC 7672), through the worker", () => {
  it("delivers over a certificate only its TLSA record vouches for", async () => {
    const id = await direct.send({ to: ["ann@ok.dane.test"], subject: "dane ok" });
    const events = await timelineUntil(db, id, "delivered");
    expect(events.find((e) => e.type === "delivered")?.detail.tls).toEqual([
      expect.objectContaining({
        mx: "mx-ok.dane.test",
        mechanism: "dane",
        result: "success",
        verified: true,
      }),
    ]);
    expect(sinks.get("ok")?.messages.map((m) => [m.envelope.to, m.secure])).toEqual([
      [["ann@ok.dane.test"], true],
    ]);
  });

  it("defers on a TLSA mismatch, then fails with the reason, having sent nothing", async () => {
    const id = await direct.send({ to: ["bob@bad.dane.test"], subject: "dane bad" });
    const events = await timelineUntil(db, id, "failed");
    const deferred = events.filter((e) => e.type === "deferred");
    expect(deferred.length).toBeGreaterThanOrEqual(1);
    for (const event of [...deferred, events.at(-1)]) {
      expect(String(event?.detail.response)).toMatch(
        /^bob@bad\.dane\.test: DANE TLSA of mx-bad\.dane\.test: mx-bad\.dane\.test: the certificate matches none of the TLSA records/,
      );
      expect(event?.detail.tls).toEqual([
        expect.objectContaining({ mechanism: "dane", result: "tlsa-invalid", enforced: true }),
      ]);
    }
    expect(events.at(-1)).toMatchObject({ type: "failed", detail: { reason: "retries_exhausted" } });
    expect(sinks.get("bad")?.messages).toHaveLength(0);
    expect(await tlsSessionCounts(db, "bad.dane.test", deferred.length + 1)).toEqual([
      { policy_type: "tlsa", result_type: "tlsa-invalid", sessions: String(deferred.length + 1) },
    ]);
  });

  it("delivers an email with `TLS-Required: No` (RFC 8689 §5) despite the mismatch, saying so", async () => {
    const id = await direct.send({ to: ["cy@bad.dane.test"], subject: "no TLS needed", tlsRequiredNo: true });
    const events = await timelineUntil(db, id, "delivered");
    expect(events.find((e) => e.type === "delivered")?.detail.tls).toEqual([
      expect.objectContaining({
        mechanism: "dane",
        result: "tlsa-invalid",
        enforced: false,
        exempt: "tls-required-no",
      }),
    ]);
    expect(sinks.get("bad")?.messages.map((m) => m.envelope.to)).toEqual([["cy@bad.dane.test"]]);
  });
});
