import { describe, expect, it } from "vitest";
import type { TlsOutcome } from "../tls-reports/outcome.ts";
import { deferralReasonOf, type TransitOutcome, transitRowsOf } from "./rows.ts";

const AT = new Date("2031-05-01T12:34:56Z");
const sts = (over: Partial<TlsOutcome> = {}): TlsOutcome => ({
  mechanism: "mta-sts",
  policyDomain: "receiver.test",
  policyType: "sts",
  enforced: true,
  mxHost: "mx.receiver.test",
  result: "success",
  tls: true,
  verified: true,
  ...over,
});
const outcome = (over: Partial<TransitOutcome>): TransitOutcome => ({
  recipient: "a@Receiver.TEST",
  status: "accepted",
  response: "250 ok",
  destination: "host:mx.receiver.test",
  ...over,
});

describe("transit rows of an attempt", () => {
  it("count recipients per domain and one TLS session for recipients that shared it, in the attempt's hour", () => {
    const rows = transitRowsOf(
      "acct",
      [
        outcome({ recipient: "a@receiver.test", tls: sts() }),
        outcome({ recipient: "b@receiver.test", tls: sts() }),
        outcome({
          recipient: "c@receiver.test",
          status: "permanent",
          code: 550,
          response: "550 5.1.1 no such user",
          tls: sts(),
        }),
      ],
      AT,
    );
    expect(rows).toEqual([
      expect.objectContaining({
        account: "acct",
        hour: "2031-05-01T12:00:00.000Z",
        domain: "receiver.test",
        kind: "delivered",
        count: 2,
        reason: "",
      }),
      expect.objectContaining({ kind: "tls", mechanism: "mta-sts", result: "success", count: 1, reason: "" }),
      expect.objectContaining({ kind: "bounced", count: 1, reason: "550 5.1.1 no such user" }),
    ]);
  });

  it("name each deferral's reason: shaped, TLS policy, rate limited, another 4xx, no reply", () => {
    const refused = sts({
      result: "certificate-expired",
      verified: false,
      detail: "mx.receiver.test: the certificate has expired",
    });
    const cases: Array<[Partial<TransitOutcome>, string]> = [
      [{ untried: true, response: "not attempted: destination gmail backed off" }, "shaped"],
      [{ tls: refused, response: "MTA-STS policy of receiver.test (enforce): …" }, "tls_policy"],
      [{ code: 421, rateLimited: true, response: "421 4.7.28 slow down" }, "rate_limited"],
      [{ code: 451, response: "451 4.3.0 try later" }, "receiver_4xx"],
      [{ response: "connect ECONNREFUSED" }, "connection"],
      // A testing policy's failure delivers (or defers for another reason): not the policy's deferral.
      [{ code: 451, tls: { ...refused, enforced: false }, response: "451 busy" }, "receiver_4xx"],
    ];
    for (const [over, reason] of cases) {
      expect(deferralReasonOf(outcome({ status: "temporary", ...over }))).toBe(reason);
    }
    const [deferred, session] = transitRowsOf(
      "acct",
      [outcome({ status: "temporary", tls: refused, response: "refused" })],
      AT,
    ).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(session).toMatchObject({
      kind: "tls",
      result: "certificate-expired",
      reason: "mx.receiver.test: the certificate has expired",
    });
    expect(deferred).toMatchObject({ kind: "deferred", result: "tls_policy", reason: "refused" });
  });

  it("keep relay sessions, skip addresses without a domain, and bound long values", () => {
    const relay = sts({ mechanism: "relay", policyDomain: "smtp.relay.test", policyType: "no-policy-found" });
    const rows = transitRowsOf(
      "acct",
      [
        outcome({ recipient: "no-domain", destination: undefined }),
        outcome({ recipient: "x@bücher.test", destination: undefined, tls: relay }),
        outcome({
          recipient: "y@bücher.test",
          status: "permanent",
          response: "5".repeat(1000),
          destination: "x".repeat(400),
        }),
      ],
      AT,
    );
    expect(rows.map((r) => [r.domain, r.kind, r.mechanism])).toEqual([
      ["xn--bcher-kva.test", "delivered", ""],
      ["xn--bcher-kva.test", "tls", "relay"],
      ["xn--bcher-kva.test", "bounced", ""],
    ]);
    expect(rows[2]?.reason).toHaveLength(255);
    expect(rows[2]?.destination).toHaveLength(260);
  });
});
