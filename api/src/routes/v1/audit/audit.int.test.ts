import { pauseAccount } from "@mailroom/core/accounts";
import { AUDIT_ACTIONS } from "@mailroom/core/audit";
import { withTransaction } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { emitEvents, fanOutEvents } from "@mailroom/core/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/support/db.ts";
import {
  startDnsServer,
  type TestDnsServer,
  type ZoneRecord,
} from "../../../../../test/support/dns-server.ts";
import { type ApiStack, startApiStack } from "../../../../../test/support/stack.ts";

// Issue 33 item 4 (ADR 0062): every change made through the API leaves one audit row, written in the change's
// own transaction, naming the key that made it (id and name) and where the request came from; GET /v1/audit
// reads them back per account, filtered and paged. Driven over real HTTPS with a real DNS server on loopback.

interface AuditBody {
  id: string;
  at: string;
  actor: { kind: string; id: string; label: string | null; keyId: string | null };
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  origin: { ip: string | null; userAgent: string | null };
}
interface AuditPage {
  data: AuditBody[];
  hasMore: boolean;
}

let db: TestDatabase;
let dns: TestDnsServer;
let api: ApiStack;
let admin: string;
let adminId: string;
let auditor: string;
let otherAuditor: string;
const AGENT = { "user-agent": "audit-test/1.0" };

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  api = await startApiStack(db, {
    env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8" },
  });
  const made = await createKey(db.pool, {
    account: "acme",
    name: "ops laptop",
    scopes: ["send", "domains", "templates", "webhooks"],
    expires: "never",
  });
  admin = made.fullKey;
  adminId = made.key.keyId;
  auditor = (await createKey(db.pool, { account: "acme", scopes: ["audit"], expires: "never" })).fullKey;
  otherAuditor = (await createKey(db.pool, { account: "globex", scopes: ["audit"], expires: "never" }))
    .fullKey;
});
afterAll(async () => {
  await api.close();
  await dns.close();
  await db.drop();
});

async function change(method: "POST" | "PATCH" | "PUT" | "DELETE", route: string, body?: unknown) {
  const res = await api.request(method, route, { key: admin, body, headers: AGENT });
  expect(res.status, `${method} ${route}: ${res.text}`).toBeLessThan(300);
  return res.json as Record<string, unknown>;
}

async function audit(query = "", key = auditor): Promise<AuditPage> {
  const res = await api.request("GET", `/v1/audit${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.json as unknown as AuditPage;
}

/** Publishes every record the API told us to, so a verify finds them. */
function publish(domain: { records: { name: string; type: string; value: string; strings?: string[] }[] }) {
  const byName = new Map<string, ZoneRecord[]>();
  for (const r of domain.records) {
    const [priority = "", exchange = ""] = r.value.split(" ");
    const record: ZoneRecord =
      r.type === "MX"
        ? { type: "MX", priority: Number(priority), exchange }
        : { type: "TXT", strings: r.strings ?? [r.value] };
    byName.set(r.name, [...(byName.get(r.name) ?? []), record]);
  }
  for (const [name, records] of byName) dns.setRecords(name, records);
}

describe("the audit trail of API changes", () => {
  it("records each kind of change with the key, its name and the request's origin", async () => {
    const domain = await change("POST", "/v1/domains", { name: "acme.test" });
    publish(domain as never);
    await change("POST", "/v1/domains/acme.test/verify");
    await change("PATCH", "/v1/domains/acme.test", { dkimRotation: { intervalDays: 90 } });
    await change("POST", "/v1/domains/acme.test/dkim/rotate", {});
    const template = await change("POST", "/v1/templates", { name: "welcome", subject: "Hi", text: "t" });
    await change("PATCH", `/v1/templates/${template.id}`, { subject: "Hello" });
    await change("DELETE", `/v1/templates/${template.id}`);
    const hook = await change("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook" });
    await change("PATCH", `/v1/webhooks/${hook.id}`, { enabled: false });
    await change("POST", `/v1/webhooks/${hook.id}/rotate-secret`, {});
    await change("DELETE", `/v1/webhooks/${hook.id}`);
    await change("POST", "/v1/suppressions", { address: "Gone@Example.test" });
    await change("DELETE", `/v1/suppressions/${encodeURIComponent("gone@example.test")}`);
    await pauseAccount(db.pool, "acme", { reason: "test", by: "test", now: new Date() });
    await change("POST", "/v1/account/resume");
    await change("DELETE", "/v1/domains/acme.test");

    const { data, hasMore } = await audit("?limit=100");
    expect(hasMore).toBe(false);
    const fromApi = data.filter((e) => e.actor.kind === "key").reverse();
    expect(fromApi.map((e) => [e.action, e.target])).toEqual([
      ["domain.created", "acme.test"],
      ["domain.verified", "acme.test"],
      ["domain.updated", "acme.test"],
      ["domain.dkim_rotation_requested", "acme.test"],
      ["template.created", template.id],
      ["template.updated", template.id],
      ["template.deleted", template.id],
      ["webhook.created", hook.id],
      ["webhook.updated", hook.id],
      ["webhook.secret_rotated", hook.id],
      ["webhook.deleted", hook.id],
      ["suppression.added", "gone@example.test"],
      ["suppression.lifted", "gone@example.test"],
      ["account.resumed", "acme"],
      ["domain.deleted", "acme.test"],
    ]);
    for (const e of fromApi) {
      expect(e.actor).toEqual({ kind: "key", id: adminId, label: "ops laptop", keyId: null });
      expect(e.origin).toEqual({ ip: "127.0.0.1", userAgent: "audit-test/1.0" });
    }
    expect(fromApi.find((e) => e.action === "template.updated")?.detail).toEqual({
      name: "welcome",
      version: 2,
    });
    expect(fromApi.find((e) => e.action === "webhook.updated")?.detail).toMatchObject({
      fields: ["enabled"],
    });
    // A secret never reaches the trail.
    const secret = (hook as { secret: string }).secret;
    expect(JSON.stringify(data)).not.toContain(secret);
  });

  it("records nothing for a change that did not happen", async () => {
    const before = (await audit("?limit=100")).data.length;
    const missing = await api.request("DELETE", "/v1/suppressions/nobody%40example.test", { key: admin });
    expect(missing.status).toBe(404);
    const taken = await api.request("POST", "/v1/templates", {
      key: admin,
      body: { name: "dup", subject: "s", text: "t" },
    });
    expect(taken.status).toBe(201);
    const again = await api.request("POST", "/v1/templates", {
      key: admin,
      body: { name: "dup", subject: "s", text: "t" },
    });
    expect(again.status).toBe(409);
    expect((await audit("?limit=100")).data.length).toBe(before + 1);
  });

  it("filters by action, actor and time, and pages with the last id as `after`", async () => {
    const created = await audit("?action=template.created");
    expect(created.data.map((e) => e.action)).toEqual(["template.created", "template.created"]);
    expect((await audit(`?actor=${adminId}&action=domain.deleted`)).data).toHaveLength(1);
    expect((await audit("?actor=nobody")).data).toEqual([]);
    expect((await audit("?actorKind=key&action=account.resumed")).data).toHaveLength(1);
    expect((await audit("?until=2000-01-01T00:00:00Z")).data).toEqual([]);
    const all = (await audit("?limit=100")).data;
    const oldest = all.at(-1);
    expect((await audit(`?since=${encodeURIComponent(oldest?.at ?? "")}&limit=100`)).data).toHaveLength(
      all.length,
    );

    const seen: string[] = [];
    let after = "";
    for (;;) {
      const page = await audit(`?limit=4${after && `&after=${after}`}`);
      seen.push(...page.data.map((e) => e.id));
      if (!page.hasMore) break;
      after = page.data.at(-1)?.id ?? "";
    }
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it("records a canceled and a rescheduled email, a replayed webhook delivery and the sandbox's chaos rules", async () => {
    const scheduled = (when: number) =>
      change("POST", "/v1/send", {
        from: "a@acme.test",
        to: ["b@example.test"],
        subject: "later",
        text: "t",
        scheduledAt: new Date(Date.now() + when).toISOString(),
      });
    const first = await scheduled(3_600_000);
    const second = await scheduled(7_200_000);
    await change("POST", `/v1/emails/${first.messageId}/cancel`);
    await change("PATCH", `/v1/emails/${second.messageId}`, {
      scheduledAt: new Date(Date.now() + 9_000_000).toISOString(),
    });
    const hook = await change("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/replayed" });
    const eventIds = await withTransaction(db.pool, (c) =>
      emitEvents(c, [{ account: "acme", type: "email.bounced", data: { emailId: "e1" } }]),
    );
    await fanOutEvents(db.pool, eventIds);
    const { rows } = await db.pool.query<{ id: string }>(
      "select id from webhook_deliveries where endpoint_id = $1",
      [hook.id],
    );
    await change("POST", `/v1/webhooks/${hook.id}/deliveries/${rows[0]?.id}/replay`);
    await change("PUT", "/v1/dev-inbox/chaos", { rules: [{ at: "rcpt", action: "reply", code: 451 }] });

    const recent = (await audit("?limit=5")).data.reverse();
    expect(recent.map((e) => [e.action, e.target])).toEqual([
      ["email.canceled", first.messageId],
      ["email.rescheduled", second.messageId],
      ["webhook.created", hook.id],
      ["webhook.delivery_replayed", hook.id],
      ["sandbox.chaos_replaced", "acme"],
    ]);
    expect(recent.every((e) => e.actor.id === adminId)).toBe(true);
  });

  it("classifies every operation that writes: audited, or left out for a stated reason", async () => {
    // What an operation records when it changes something (tested above), or why it records nothing.
    const AUDITED = [
      "createDomain",
      "verifyDomain",
      "updateDomain",
      "rotateDomainDkim",
      "deleteDomain",
      "createTemplate",
      "updateTemplate",
      "deleteTemplate",
      "createWebhook",
      "updateWebhook",
      "deleteWebhook",
      "rotateWebhookSecret",
      "replayWebhookDelivery",
      "addSuppression",
      "deleteSuppression",
      "resumeAccount",
      "cancelEmail",
      "rescheduleEmail",
      "putDevInboxChaos",
      // Their rows: api/src/routes/v1/keys/keys.int.test.ts.
      "createKey",
      "revokeKey",
    ];
    const LEFT_OUT: Record<string, string> = {
      sendEmail: "sending is what the email log records, each email with the key that sent it",
      sendBatch: "as sendEmail",
      renderTemplate: "changes nothing: renders a preview",
      clearDevInbox: "deletes captured test mail of a sandbox, which no one sends on",
    };
    const document = (await api.request("GET", "/v1/openapi.json")).json as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const writes = Object.values(document.paths).flatMap((methods) =>
      Object.entries(methods)
        .filter(([method]) => method !== "get")
        .map(([, op]) => op.operationId),
    );
    expect(writes.filter((id) => !AUDITED.includes(id) && !(id in LEFT_OUT))).toEqual([]);
  });

  it("shows each account only its own trail", async () => {
    expect((await audit("", otherAuditor)).data).toEqual([]);
  });

  it("answers 400 in the spec's shape to bad filters, and 403 to a key without the `audit` scope", async () => {
    for (const query of [
      "?after=nope",
      "?action=key.stolen",
      "?since=yesterday",
      "?limit=0",
      "?actorKind=robot",
    ]) {
      const res = await api.request("GET", `/v1/audit${query}`, { key: auditor });
      expect(res.status, query).toBe(400);
      expect(Object.keys(res.json ?? {}).sort()).toEqual(["error", "message"]);
    }
    const res = await api.request("GET", "/v1/audit", { key: admin });
    expect(res.status).toBe(403);
    expect(res.json?.error).toBe("insufficient_scope");
  });
  it("serves the actions it records, for the filter's choices (scope `audit` only)", async () => {
    const res = await api.request("GET", "/v1/audit/actions", { key: auditor });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ data: [...AUDIT_ACTIONS] });
    // Each one is a value the list's filter takes.
    const action = String(AUDIT_ACTIONS.at(-1));
    expect((await api.request("GET", `/v1/audit?action=${action}`, { key: auditor })).status).toBe(200);
    const refused = await api.request("GET", "/v1/audit/actions", { key: admin });
    expect(refused.status).toBe(403);
    expect(refused.json?.error).toBe("insufficient_scope");
  });
});
