import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/db.ts";
import { startOidcProvider, type TestOidcProvider } from "../../../../test/support/oidc-provider.ts";
import { freePort } from "../../../../test/support/ports.ts";
import { type ApiStack, startApiStack } from "../../../../test/support/stack.ts";

const VERIFIER = "v".repeat(43);
const ROLES = JSON.stringify([{ group: "g", account: "default", scopes: ["send"] }]);

/**
 * The sign-in routes' answers to bad input (ADR 0063): the spec's error shape, never a 5xx from what a
 * client sends. The full flow, through a browser, is test/browser/oidc.int.test.ts.
 */
describe("the OpenID Connect sign-in routes", () => {
  let db: TestDatabase;
  let idp: TestOidcProvider;
  let withProvider: ApiStack;
  let without: ApiStack;
  let unreachable: ApiStack;

  beforeAll(async () => {
    db = await createTestDatabase();
    idp = await startOidcProvider({
      port: await freePort(),
      redirectUri: "https://localhost/console/",
      groups: {},
    });
    const env = (issuer: string) => ({
      MAILROOM_OIDC_ISSUER: issuer,
      MAILROOM_OIDC_CLIENT_ID: idp.clientId,
      MAILROOM_OIDC_CLIENT_SECRET: idp.clientSecret,
      MAILROOM_OIDC_REDIRECT_URI: "https://localhost/console/",
      MAILROOM_OIDC_ROLES: ROLES,
    });
    [withProvider, without, unreachable] = await Promise.all([
      startApiStack(db, { env: env(idp.issuer) }),
      startApiStack(db),
      // Nothing listens there: a port handed out and never bound.
      startApiStack(db, { env: env(`http://127.0.0.1:${await freePort()}`) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([withProvider?.close(), without?.close(), unreachable?.close()]);
    await idp?.close();
    await db?.drop();
  });

  it("says where to send the person, or that sign-in is off", async () => {
    const on = await withProvider.request("GET", "/auth/oidc");
    expect(on.status).toBe(200);
    expect(on.json).toMatchObject({
      enabled: true,
      clientId: idp.clientId,
      authorizationEndpoint: expect.stringMatching(new RegExp(`^${idp.issuer}/`)),
    });
    expect(JSON.stringify(on.json)).not.toContain(idp.clientSecret);
    expect((await without.request("GET", "/auth/oidc")).json).toEqual({ enabled: false });
  });

  it.each([
    [{}, 400, "validation_error"],
    [{ code: "c", codeVerifier: "short", nonce: "n" }, 400, "validation_error"],
    [{ code: "c", codeVerifier: VERIFIER, nonce: "n", extra: 1 }, 400, "validation_error"],
    [{ code: "no-such-code", codeVerifier: VERIFIER, nonce: "n" }, 400, "sign_in_failed"],
  ])("answers %j with %i %s", async (body, status, error) => {
    const res = await withProvider.request("POST", "/auth/oidc/session", { body });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ error, message: expect.any(String) });
  });

  it("answers 404 when sign-in is off and 503 when the provider cannot be reached", async () => {
    const body = { code: "c", codeVerifier: VERIFIER, nonce: "n" };
    const off = await without.request("POST", "/auth/oidc/session", { body });
    expect([off.status, (off.json as { error: string }).error]).toEqual([404, "not_found"]);
    const down = await unreachable.request("POST", "/auth/oidc/session", { body });
    expect([down.status, (down.json as { error: string }).error]).toEqual([503, "service_unavailable"]);
  });

  it("signs out only a person's key: a machine's key is refused there and keeps working", async () => {
    const { fullKey } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" });
    const res = await withProvider.request("POST", "/auth/oidc/sign-out", { key: fullKey });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: "conflict" });
    expect((await withProvider.request("GET", "/v1/key", { key: fullKey })).status).toBe(200);
    expect((await withProvider.request("POST", "/auth/oidc/sign-out")).status).toBe(401);
  });

  it("signs a person's key out: revoked, and recorded in the audit trail as the person with that key", async () => {
    const person = await createKey(db.pool, {
      account: "default",
      scopes: ["send"],
      expires: "30d",
      managedBy: "api",
      owner: { issuer: idp.issuer, subject: "erin", email: "erin@example.test" },
    });
    const res = await withProvider.request("POST", "/auth/oidc/sign-out", { key: person.fullKey });
    expect(res.status).toBe(204);
    const dead = await withProvider.request("GET", "/v1/key", { key: person.fullKey });
    expect((dead.json as { error: string }).error).toBe("api_key_revoked");
    const { rows } = await db.pool.query(
      "select actor_kind, actor, actor_label, actor_key_id from audit_events where action = 'key.revoked' and target = $1",
      [person.key.keyId],
    );
    expect(rows).toEqual([
      {
        actor_kind: "person",
        actor: "erin",
        actor_label: "erin@example.test",
        actor_key_id: person.key.keyId,
      },
    ]);
  });
});
