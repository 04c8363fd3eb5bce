import { createTlsRecorder } from "@mailroom/core/tls-reports";
import { publishShapingState } from "@mailroom/core/transit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectAs, keyFor, startTestApp } from "../../../../../test/support/app.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";

let db: TestDatabase;
let app: FastifyInstance;
let acme: string;
let globex: string;

// Now, so the default period (the last 24 hours) holds what the worker's recorder wrote this hour.
const NOW = new Date();
const mtaSts = {
  mechanism: "mta-sts" as const,
  policyDomain: "shared.test",
  policyType: "sts" as const,
  enforced: true,
  mxHost: "mx.shared.test",
  tls: true,
  verified: true,
};

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp(db);
  acme = await keyFor(db, "acme", ["send"]);
  globex = await keyFor(db, "globex", ["send"]);
  // Both accounts send to shared.test, through the one recorder the deliver task uses.
  const record = createTlsRecorder(db.pool);
  const to = (recipient: string, over: object = {}) => ({
    recipient,
    status: "accepted" as const,
    response: "250 ok",
    destination: "group:gmail",
    tls: { ...mtaSts, result: "success" as const },
    ...over,
  });
  await record("acme", [to("a@shared.test"), to("b@shared.test")], NOW);
  await record(
    "acme",
    [
      to("c@shared.test", {
        status: "temporary",
        response: "MTA-STS policy of shared.test (enforce): mx.shared.test: the certificate has expired",
        tls: { ...mtaSts, result: "certificate-expired", verified: false, detail: "mx.shared.test: expired" },
      }),
    ],
    NOW,
  );
  await record(
    "globex",
    [
      to("x@shared.test", {
        status: "temporary",
        code: 421,
        rateLimited: true,
        response: "421 4.7.28 slow down",
      }),
    ],
    NOW,
  );
  await record("globex", [to("y@globex-only.test", { destination: "host:mx.globex-only.test" })], NOW);
  await publishShapingState(db.pool, "worker-1", [
    {
      destination: "group:gmail",
      level: 0.5,
      concurrency: 10,
      ratePerMinute: 0,
      inFlight: 1,
      pausedUntil: new Date(Date.now() + 120_000),
      lastReply: "421 4.7.28 slow down",
    },
  ]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const get = (url: string, as: string) => injectAs(app, as, "GET", url);

describe("GET /v1/stats/transit (issue 32 item 6)", () => {
  it("shows an account its own sessions and deferrals per domain, and the receiver's shaping state", async () => {
    const res = await get("/v1/stats/transit", acme);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.domains).toEqual([
      {
        domain: "shared.test",
        delivered: 2,
        bounced: 0,
        deferred: 1,
        deferrals: [{ reason: "tls_policy", count: 1 }],
        sessions: [
          { mechanism: "mta-sts", result: "certificate-expired", count: 1 },
          { mechanism: "mta-sts", result: "success", count: 1 },
        ],
        lastFailure: {
          at: NOW.toISOString(),
          reason: expect.stringMatching(/certificate has expired|expired/),
        },
        destinations: [
          {
            destination: "group:gmail",
            name: "gmail",
            state: expect.objectContaining({
              backedOff: true,
              level: 0.5,
              concurrency: 10,
              inFlight: 1,
              lastReply: "421 4.7.28 slow down",
              pausedUntil: expect.any(String),
              workers: 1,
              workersBackedOff: 1,
            }),
          },
        ],
      },
    ]);
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(24 * 3_600_000);
  });

  it("keeps each account to its own counts: the other tenant's deferral and domain are not shown", async () => {
    const acmeText = (await get("/v1/stats/transit", acme)).body;
    expect(acmeText).not.toContain("globex-only.test");
    expect(acmeText).not.toContain("rate_limited");
    const res = await get("/v1/stats/transit", globex);
    expect(res.statusCode).toBe(200);
    const domains = res.json().domains as Array<Record<string, unknown>>;
    expect(domains.map((d) => [d.domain, d.delivered, d.deferred])).toEqual([
      ["globex-only.test", 1, 0],
      ["shared.test", 0, 1],
    ]);
    expect(domains[1]).toMatchObject({
      deferrals: [{ reason: "rate_limited", count: 1 }],
      sessions: [{ mechanism: "mta-sts", result: "success", count: 1 }],
      lastFailure: { reason: "421 4.7.28 slow down" },
    });
    // The shaping state is the receiver's: the same for both tenants.
    expect(domains[0]?.destinations).toEqual([
      { destination: "host:mx.globex-only.test", name: "mx.globex-only.test", state: null },
    ]);
  });

  it("answers bad periods with a validation error, and other scopes with 403", async () => {
    const cases: Array<[string, string]> = [
      ["?from=2031-05-02T00:00:00Z&to=2031-05-01T00:00:00Z", "from: a time before to"],
      ["?from=2031-01-01T00:00:00Z&to=2031-05-01T00:00:00Z", "at most 31 days"],
      ["?from=yesterday", "from"],
      ["?bucket=day", "bucket"],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/v1/stats/transit${query}`, acme);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({
        error: "validation_error",
        message: expect.stringContaining(message),
      });
    }
    const domainsOnly = await keyFor(db, "acme", ["domains"]);
    expect((await get("/v1/stats/transit", domainsOnly)).statusCode).toBe(403);
  });
});
