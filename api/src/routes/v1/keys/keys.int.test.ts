import { createKey, type Scope } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import { type ApiStack, captureLogs, startApiStack } from "../../../../../test/support/stack.ts";

// Issue 33 item 5 (ADR 0069): /v1/keys lists, creates and revokes an account's keys for a key holding `keys`:
// no escalation beyond the caller's scopes, the spec's expiry choices, the full key shown once, revocation by
// key id through the CLI's and operator's path (unsent mail failed with `api_key_revoked`), operator-managed
// keys refused with 409, each change audited. Real HTTPS, real Postgres; no worker runs, so mail stays unsent.

interface KeyBody {
  keyId: string;
  name: string | null;
  scopes: string[];
  mode: string;
  state: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  managedBy: string;
  owner: { issuer: string; subject: string; email: string | null } | null;
}

let db: TestDatabase;
let api: ApiStack;
let admin: { keyId: string; full: string };
// Every line the API logs (level trace): a key made here must never be in one (spec §5.8).
const logs = captureLogs();

const make = async (scopes: Scope[], options: Partial<Parameters<typeof createKey>[1]> = {}) => {
  const made = await createKey(db.pool, { account: "acme", scopes, expires: "never", ...options });
  return { keyId: made.key.keyId, full: made.fullKey };
};
const call = (key: string, method: string, route: string, body?: unknown) =>
  api.request(method, route, { key, body });
const errorOf = (res: { status: number; json: unknown }) => [
  res.status,
  (res.json as { error: string }).error,
];

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApiStack(db, { logger: logs.logger });
  admin = await make(["keys", "send", "audit"], { name: "admin" });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

describe("GET /v1/keys", () => {
  it("lists the account's keys with owner, manager and state, never a secret or its hash, newest first", async () => {
    const person = await make(["send"], {
      name: "sign-in: ann@acme.test",
      managedBy: "api",
      owner: { issuer: "https://idp.test", subject: "ann", email: "ann@acme.test" },
    });
    const declared = await make(["domains"], { managedBy: "operator", name: "acme/deployer" });
    const dead = await make(["send"]);
    expect((await call(admin.full, "POST", `/v1/keys/${dead.keyId}/revoke`)).status).toBe(200);
    await createKey(db.pool, { account: "globex", scopes: ["send"], expires: "never" });

    const res = await call(admin.full, "GET", "/v1/keys");
    expect(res.status, res.text).toBe(200);
    const { data, hasMore } = res.json as { data: KeyBody[]; hasMore: boolean };
    expect(hasMore).toBe(false);
    expect(data.map((k) => k.keyId)).toEqual([dead.keyId, declared.keyId, person.keyId, admin.keyId]);
    for (const k of data) {
      expect(Object.keys(k).sort()).toEqual(
        [
          "createdAt",
          "expiresAt",
          "keyId",
          "lastUsedAt",
          "managedBy",
          "mode",
          "name",
          "owner",
          "revokedAt",
          "scopes",
          "state",
        ].sort(),
      );
    }
    for (const secret of [person, declared, dead, admin].map((k) => k.full.split("_")[2] as string)) {
      expect(res.text).not.toContain(secret);
    }
    expect(res.text).not.toMatch(/sha256|hash/i);
    const byId = new Map(data.map((k) => [k.keyId, k]));
    expect(byId.get(person.keyId)?.owner).toEqual({
      issuer: "https://idp.test",
      subject: "ann",
      email: "ann@acme.test",
    });
    expect(byId.get(declared.keyId)).toMatchObject({ managedBy: "operator", owner: null, state: "active" });
    expect(byId.get(dead.keyId)).toMatchObject({ state: "revoked", revokedAt: expect.any(String) });
    // The admin key has been used (this request), so it has a last use.
    expect(byId.get(admin.keyId)?.lastUsedAt).toEqual(expect.any(String));

    const revoked = (await call(admin.full, "GET", "/v1/keys?state=revoked")).json as unknown as {
      data: KeyBody[];
    };
    expect(revoked.data.map((k) => k.keyId)).toEqual([dead.keyId]);
    const first = (await call(admin.full, "GET", "/v1/keys?limit=3")).json as {
      data: KeyBody[];
      hasMore: boolean;
    };
    expect(first.hasMore).toBe(true);
    const rest = (await call(admin.full, "GET", `/v1/keys?limit=3&after=${first.data.at(-1)?.keyId}`))
      .json as { data: KeyBody[]; hasMore: boolean };
    expect([...first.data, ...rest.data].map((k) => k.keyId)).toEqual(data.map((k) => k.keyId));
    expect(rest.hasMore).toBe(false);
    expect(errorOf(await call(admin.full, "GET", "/v1/keys?state=gone"))).toEqual([400, "validation_error"]);
  });
});

describe("POST /v1/keys", () => {
  it("creates a key with scopes the caller holds, shows the full key once, and the key works within them", async () => {
    const res = await call(admin.full, "POST", "/v1/keys", {
      scopes: ["send"],
      name: "billing",
      expires: "90d",
    });
    expect(res.status, res.text).toBe(201);
    const made = res.json as unknown as KeyBody & { key: string };
    expect(made.key).toMatch(new RegExp(`^mrk_${made.keyId}_[0-9A-Za-z]{32}$`));
    expect(made).toMatchObject({
      name: "billing",
      scopes: ["send"],
      managedBy: "api",
      owner: null,
      state: "active",
    });
    expect((await call(made.key, "GET", "/v1/emails")).status).toBe(200);
    expect(errorOf(await call(made.key, "POST", "/v1/domains", { name: "x.test" }))).toEqual([
      403,
      "insufficient_scope",
    ]);
    // Never again: the list does not carry it.
    expect((await call(admin.full, "GET", "/v1/keys")).text).not.toContain(made.key.split("_")[2]);
  });

  it("refuses to give scopes the caller lacks (no escalation), and creates nothing", async () => {
    const before = (await db.pool.query("select count(*)::int as n from api_keys")).rows[0].n;
    for (const scopes of [["domains"], ["send", "templates"], ["keys", "webhooks"]]) {
      const res = await call(admin.full, "POST", "/v1/keys", { scopes });
      expect(errorOf(res), JSON.stringify(scopes)).toEqual([403, "insufficient_scope"]);
      expect((res.json as { message: string }).message).toContain("lacks");
    }
    const sandbox = await make(["keys", "send"], { mode: "sandbox" });
    expect(errorOf(await call(sandbox.full, "POST", "/v1/keys", { scopes: ["send"], mode: "live" }))).toEqual(
      [403, "insufficient_scope"],
    );
    const inherited = await call(sandbox.full, "POST", "/v1/keys", { scopes: ["send"] });
    expect((inherited.json as unknown as KeyBody).mode).toBe("sandbox");
    const after = (await db.pool.query("select count(*)::int as n from api_keys")).rows[0].n;
    expect(after).toBe(before + 2);
  });

  it.each([
    ["30d", 30],
    ["90d", 90],
    ["365d", 365],
  ])("fixes expiry %s at creation (%i days)", async (expires, days) => {
    const made = (await call(admin.full, "POST", "/v1/keys", { scopes: ["send"], expires }))
      .json as unknown as KeyBody;
    const span = Date.parse(made.expiresAt ?? "") - Date.parse(made.createdAt);
    expect(span).toBe(days * 86_400_000);
  });

  it("makes a key that never expires without an expiry or with `never`, and refuses any other choice", async () => {
    for (const body of [{ scopes: ["send"] }, { scopes: ["send"], expires: "never" }]) {
      const made = (await call(admin.full, "POST", "/v1/keys", body)).json as unknown as KeyBody;
      expect(made.expiresAt).toBeNull();
    }
    for (const body of [
      { scopes: ["send"], expires: "7d" },
      { scopes: ["send"], expires: 30 },
      { scopes: [] },
      { scopes: ["admin"] },
      { scopes: ["send"], name: "x".repeat(201) },
      { scopes: ["send"], secret: "mine" },
    ]) {
      expect(errorOf(await call(admin.full, "POST", "/v1/keys", body)), JSON.stringify(body)).toEqual([
        400,
        "validation_error",
      ]);
    }
  });
});

describe("POST /v1/keys/{keyId}/revoke", () => {
  it("revokes at once: the next request is refused and the key's unsent mail fails with api_key_revoked", async () => {
    const sender = await make(["send"]);
    const mail = { from: "a@acme.test", to: ["b@example.test"], subject: "s", text: "t" };
    const queued = (await call(sender.full, "POST", "/v1/send", mail)).json as { messageId: string };
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = (await call(sender.full, "POST", "/v1/send", { ...mail, scheduledAt: later })).json as {
      messageId: string;
    };

    const res = await call(admin.full, "POST", `/v1/keys/${sender.keyId}/revoke`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ keyId: sender.keyId, state: "revoked", failedEmails: 2 });
    expect(errorOf(await call(sender.full, "GET", "/v1/emails"))).toEqual([401, "api_key_revoked"]);
    for (const id of [queued.messageId, scheduled.messageId]) {
      const email = (await call(admin.full, "GET", `/v1/emails/${id}`)).json;
      expect(email).toMatchObject({ status: "failed", failureReason: "api_key_revoked" });
    }
    // Again: nothing more to do, nothing more recorded.
    const again = await call(admin.full, "POST", `/v1/keys/${sender.keyId}/revoke`);
    expect(again.json).toMatchObject({ state: "revoked", failedEmails: 0 });
    const rows = await db.pool.query(
      "select 1 from audit_events where action = 'key.revoked' and target = $1",
      [sender.keyId],
    );
    expect(rows.rowCount).toBe(1);
  });

  it("answers 409 managed_by_operator for a key an ApiKey resource declares, and leaves it working", async () => {
    const declared = await make(["send"], { managedBy: "operator" });
    expect(errorOf(await call(admin.full, "POST", `/v1/keys/${declared.keyId}/revoke`))).toEqual([
      409,
      "managed_by_operator",
    ]);
    expect((await call(declared.full, "GET", "/v1/emails")).status).toBe(200);
  });

  it("refuses the calling key itself (409 conflict): another key or a sign-out revokes it", async () => {
    const res = await call(admin.full, "POST", `/v1/keys/${admin.keyId}/revoke`);
    expect(errorOf(res)).toEqual([409, "conflict"]);
    expect((await call(admin.full, "GET", "/v1/keys")).status).toBe(200);
  });

  it("answers 404 for another account's key or an unknown id, and 400 for a full key in the path", async () => {
    const other = await createKey(db.pool, { account: "globex", scopes: ["send"], expires: "never" });
    expect(errorOf(await call(admin.full, "POST", `/v1/keys/${other.key.keyId}/revoke`))).toEqual([
      404,
      "not_found",
    ]);
    expect((await call(other.fullKey, "GET", "/v1/key")).status).toBe(200);
    expect(errorOf(await call(admin.full, "POST", "/v1/keys/AAAAAAAAAAAA/revoke"))).toEqual([
      404,
      "not_found",
    ]);
    const pasted = await call(admin.full, "POST", `/v1/keys/${other.fullKey}/revoke`);
    expect(errorOf(pasted)).toEqual([400, "validation_error"]);
    expect(pasted.text).not.toContain(other.fullKey.split("_")[2]);
  });
});

describe("scope and audit", () => {
  it("answers 403 insufficient_scope on every /v1/keys route to a key without `keys`", async () => {
    const all = await make(["send", "domains", "templates", "webhooks", "audit"]);
    for (const [method, route, body] of [
      ["GET", "/v1/keys", undefined],
      ["POST", "/v1/keys", { scopes: ["send"] }],
      ["POST", `/v1/keys/${admin.keyId}/revoke`, undefined],
    ] as const) {
      expect(errorOf(await call(all.full, method, route, body)), route).toEqual([403, "insufficient_scope"]);
    }
  });

  it("records each create and revoke; a person's key is recorded as the person, with the key alongside", async () => {
    const person = await make(["keys", "send"], {
      name: "sign-in: bo@acme.test",
      managedBy: "api",
      owner: { issuer: "https://idp.test", subject: "bo-sub", email: "bo@acme.test" },
    });
    const made = (await call(person.full, "POST", "/v1/keys", { scopes: ["send"], name: "cron" }))
      .json as unknown as KeyBody;
    expect((await call(person.full, "POST", `/v1/keys/${made.keyId}/revoke`)).status).toBe(200);
    const byAdmin = (await call(admin.full, "POST", "/v1/keys", { scopes: ["send"] }))
      .json as unknown as KeyBody;

    type Entry = { action: string; target: string; actor: Record<string, unknown>; detail: object };
    const audit = async (query: string) =>
      ((await call(admin.full, "GET", `/v1/audit${query}`)).json as { data: Entry[] }).data;
    const mine = await audit(`?actor=${person.keyId}`);
    expect(mine.map((e) => [e.action, e.target])).toEqual([
      ["key.revoked", made.keyId],
      ["key.created", made.keyId],
    ]);
    for (const e of mine) {
      expect(e.actor).toEqual({ kind: "person", id: "bo-sub", label: "bo@acme.test", keyId: person.keyId });
    }
    expect(mine[1]?.detail).toMatchObject({ name: "cron", scopes: ["send"] });
    expect((await audit("?actorKind=person&action=key.created")).map((e) => e.target)).toEqual([made.keyId]);
    const adminRow = (await audit(`?actor=${admin.keyId}&action=key.created`))[0];
    expect(adminRow).toMatchObject({
      target: byAdmin.keyId,
      actor: { kind: "key", id: admin.keyId, label: "admin", keyId: null },
    });
  });

  it("never logs a key it makes: the log names the key id only", async () => {
    const made = (await call(admin.full, "POST", "/v1/keys", { scopes: ["send"] }))
      .json as unknown as KeyBody & {
      key: string;
    };
    expect((await call(admin.full, "POST", `/v1/keys/${made.keyId}/revoke`)).status).toBe(200);
    // Pasted where the key id belongs: refused, and the access log's URL keeps no secret either.
    expect((await call(admin.full, "POST", `/v1/keys/${made.key}/revoke`)).status).toBe(400);
    const secret = made.key.split("_")[2] as string;
    expect(logs.lines.filter((line) => line.includes(secret))).toEqual([]);
    expect(logs.lines.some((line) => line.includes(`"createdKeyId":"${made.keyId}"`))).toBe(true);
    expect(logs.lines.some((line) => line.includes(`"revokedKeyId":"${made.keyId}"`))).toBe(true);
  });
});
