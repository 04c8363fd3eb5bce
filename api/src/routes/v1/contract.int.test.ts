import { loadConfig } from "@mailroom/core/config";
import { createKey, revokeKey, SCOPES, type Scope } from "@mailroom/core/keys";
import { captureMessage } from "@mailroom/core/sandbox";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/db.ts";
import { TEST_KEK } from "../../../../test/support/stack.ts";
import { buildApp } from "../../app.ts";

/**
 * One contract over every operation of the served OpenAPI document (issue 35 item 3): no key → 401
 * `missing_api_key`, a key without the operation's scope → 403 `insufficient_scope`, a revoked key → 401
 * `api_key_revoked`, and another account's resource → 404 with no row changed. Operations are enumerated from
 * the document the API serves (the dev inbox included, as `mailroom run` serves it), so a new route cannot
 * escape; one that lacks what the suite needs (its scope, a fixture for its path parameters, a body) fails.
 */

interface Operation {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  operationId: string;
  /** The scope the document names as the role of the operation's `bearer` requirement ("any": none). */
  scope: Scope | "any";
  /** The document says a body is required (a call without one fails validation before anything else). */
  hasBody: boolean;
}

let db: TestDatabase;
let app: FastifyInstance;
let operations: Operation[];
/** Path parameter values naming the victim account's resources, by the path they appear in. */
const victim: Record<string, Record<string, string>> = {};
const keys: { missing?: undefined; revoked: string; all: string; without: Record<Scope, string> } = {
  revoked: "",
  all: "",
  without: {} as Record<Scope, string>,
};

async function as(key: string | undefined, method: Operation["method"], url: string, payload?: object) {
  return app.inject({
    method,
    url,
    headers: key ? { authorization: `Bearer ${key}` } : {},
    ...(payload ? { payload } : {}),
  });
}

// The bodies a call needs to reach its handler (validation comes before the ownership check).
const BODIES: Record<string, object> = {
  sendEmail: { from: "a@attacker.test", to: ["b@example.test"], subject: "s", text: "t" },
  sendBatch: [
    { from: "a@attacker.test", to: ["b@example.test"], subject: "s", text: "t" },
  ] as unknown as object,
  rescheduleEmail: { scheduledAt: new Date(Date.now() + 7_200_000).toISOString() },
  createTemplate: { name: "t", subject: "s", text: "t" },
  updateTemplate: { description: "changed by another account" },
  renderTemplate: { variables: {} },
  createDomain: { name: "attacker.test" },
  updateDomain: { dkimRotation: { intervalDays: 0 } },
  addSuppression: { address: "x@example.test" },
  createWebhook: { url: "http://127.0.0.1:9/hook" },
  updateWebhook: { enabled: false },
  putDevInboxChaos: { rules: [] },
  createKey: { scopes: ["send"] },
};

/** The operation's URL with its path parameters filled from the victim's resources. */
function victimUrl(op: Operation): string {
  if (!op.path.includes("{")) return op.path;
  const values = Object.entries(victim).find(([prefix]) => op.path.startsWith(prefix))?.[1];
  if (!values) throw new Error(`${op.operationId}: no victim fixture for ${op.path}; add one to this suite`);
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${op.operationId}: no victim value for {${name}}`);
    return encodeURIComponent(value);
  });
}

/** Every row of every table of ours, as text: a change anywhere shows (per-request counters aside). */
async function snapshot(): Promise<Record<string, string>> {
  const { rows } = await db.pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables
     where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not in ('rate_limit_counters')`,
  );
  const out: Record<string, string> = {};
  for (const { table_name } of rows) {
    // A key's last use is recorded by authentication itself (about once an hour), not by the operation.
    const sql =
      table_name === "api_keys"
        ? `select coalesce(string_agg(concat_ws('|', key_id, revoked_at, scopes), ',' order by key_id), '') as v
           from api_keys`
        : `select coalesce(string_agg(t::text, ',' order by t::text), '') as v from ${table_name} t`;
    out[table_name] = (await db.pool.query<{ v: string }>(sql)).rows[0]?.v ?? "";
  }
  return out;
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = buildApp({
    config: loadConfig({
      MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
      MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8",
    }),
    pool: db.pool,
    logger: createLogger({ level: "silent", name: "contract" }),
    metrics: createApiMetrics(),
    kek: TEST_KEK,
  });
  await app.ready();

  const document = (await app.inject({ method: "GET", url: "/v1/openapi.json" })).json() as {
    paths: Record<
      string,
      Record<
        string,
        { operationId?: string; security?: { bearer?: string[] }[]; requestBody?: { required?: boolean } }
      >
    >;
  };
  operations = Object.entries(document.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const roles = op.security?.[0]?.bearer;
      if (!op.operationId || !roles)
        throw new Error(`${method} ${p}: no operationId or no bearer requirement`);
      if (roles.length > 1 || (roles[0] !== undefined && !(SCOPES as readonly string[]).includes(roles[0]))) {
        throw new Error(`${method} ${p}: its bearer roles ${JSON.stringify(roles)} are not one scope`);
      }
      return {
        method: method.toUpperCase() as Operation["method"],
        path: p,
        operationId: op.operationId,
        scope: (roles[0] ?? "any") as Scope | "any",
        hasBody: op.requestBody?.required === true,
      };
    }),
  );

  const key = async (account: string, scopes: readonly Scope[]) =>
    (await createKey(db.pool, { account, scopes, expires: "never" })).fullKey;
  const victimKey = await createKey(db.pool, { account: "victim", scopes: SCOPES, expires: "never" });
  const owner = victimKey.fullKey;
  keys.all = await key("attacker", SCOPES);
  for (const scope of SCOPES)
    keys.without[scope] = await key(
      "attacker",
      SCOPES.filter((s) => s !== scope),
    );
  const revoked = await createKey(db.pool, { account: "attacker", scopes: SCOPES, expires: "never" });
  await revokeKey(db.pool, revoked.key.keyId);
  keys.revoked = revoked.fullKey;

  // The victim's resources, one of each kind a path can name.
  const created = async (method: Operation["method"], url: string, payload: object) => {
    const res = await as(owner, method, url, payload);
    if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, string>;
  };
  const email = await created("POST", "/v1/send", {
    from: "v@victim.test",
    to: ["r@example.test"],
    subject: "s",
    text: "t",
    attachments: [{ filename: "a.txt", contentType: "text/plain", content: "eA==" }],
    scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const template = await created("POST", "/v1/templates", { name: "victims", subject: "s", text: "t" });
  await created("POST", "/v1/domains", { name: "victim.test" });
  await created("POST", "/v1/suppressions", { address: "kept@victim.test" });
  const endpoint = await created("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/victim" });
  victim["/v1/emails/{id}"] = { id: String(email.messageId), index: "0" };
  victim["/v1/templates/{id}"] = { id: String(template.id), version: "1" };
  victim["/v1/domains/{domain}"] = { domain: "victim.test" };
  victim["/v1/suppressions/{address}"] = { address: "kept@victim.test" };
  victim["/v1/webhooks/{id}"] = {
    id: String(endpoint.id),
    deliveryId: "0190a4c2-7a8b-7c00-8000-000000000001",
  };
  // The victim's captured message (issue 30: every install's dev inbox is per account), with an attachment.
  const captured = await captureMessage(db.pool, {
    emailId: String(email.messageId),
    account: "victim",
    envelopeFrom: "v@victim.test",
    recipients: ["r@example.test"],
    subject: "s",
    raw: Buffer.from(
      'Subject: s\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nt\r\n' +
        '--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="a.txt"\r\n\r\nx\r\n--b--\r\n',
    ),
  });
  victim["/v1/dev-inbox/messages/{id}"] = { id: captured, index: "0" };
  victim["/v1/keys/{keyId}"] = { keyId: victimKey.key.keyId };
});

afterAll(async () => {
  await app.close();
  await db.drop();
});

describe("the route contract, over every operation of the served document", () => {
  it("answers 401 missing_api_key without a key", async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const res = await as(
        undefined,
        op.method,
        victimUrl(op),
        op.hasBody ? (BODIES[op.operationId] ?? {}) : undefined,
      );
      if (res.statusCode !== 401 || res.json().error !== "missing_api_key")
        wrong.push(`${op.operationId}: ${res.statusCode} ${res.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers 401 api_key_revoked to a revoked key", async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      const res = await as(
        keys.revoked,
        op.method,
        victimUrl(op),
        op.hasBody ? (BODIES[op.operationId] ?? {}) : undefined,
      );
      if (res.statusCode !== 401 || res.json().error !== "api_key_revoked")
        wrong.push(`${op.operationId}: ${res.statusCode} ${res.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers 403 insufficient_scope to a key lacking the operation's scope", async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      if (op.scope === "any") continue; // any valid key may call it: nothing to lack
      const res = await as(
        keys.without[op.scope],
        op.method,
        victimUrl(op),
        op.hasBody ? (BODIES[op.operationId] ?? {}) : undefined,
      );
      if (res.statusCode !== 403 || res.json().error !== "insufficient_scope")
        wrong.push(`${op.operationId}: ${res.statusCode} ${res.body}`);
    }
    expect(wrong).toEqual([]);
  });

  it("answers 404 to another account's resource, and changes no row", async () => {
    const wrong: string[] = [];
    for (const op of operations) {
      if (!op.path.includes("{")) continue; // names no resource: lists and creates act on the key's account
      if (op.hasBody && !BODIES[op.operationId])
        throw new Error(`${op.operationId}: add the body it needs to BODIES`);
      const before = await snapshot();
      const res = await as(
        keys.all,
        op.method,
        victimUrl(op),
        op.hasBody ? BODIES[op.operationId] : undefined,
      );
      if (res.statusCode !== 404 || res.json().error !== "not_found")
        wrong.push(`${op.operationId}: ${res.statusCode} ${res.body}`);
      const after = await snapshot();
      for (const table of Object.keys(before)) {
        if (before[table] !== after[table]) wrong.push(`${op.operationId}: changed ${table}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
