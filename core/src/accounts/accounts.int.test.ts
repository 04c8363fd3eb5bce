import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, withDatabaseBefore } from "../../../test/support/db.ts";
import { migrate } from "../db/migrate.ts";
import type { Queryable } from "../db/pool.ts";
import { createRequestAuthenticator } from "../keys/authenticate.ts";
import { createKey } from "../keys/index.ts";
import { createTemplate } from "../templates/store.ts";
import { createSsrfGuard } from "../webhooks/ssrf.ts";
import { createEndpoint } from "../webhooks/store.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const accounts = async (pool: Queryable) =>
  (await pool.query<{ account: string }>("select account from accounts order by account")).rows.map(
    (r) => r.account,
  );

describe("accounts (issue 35 item 1)", () => {
  it("migration 0035 backfills a row for every account in use, whichever table it appears in", async () => {
    // The schema as it was before the accounts table: graphile-worker's, then our migrations up to 0034.
    await withDatabaseBefore("0035", async (client, url) => {
      const sha = Buffer.alloc(32);
      await client.query(
        `insert into api_keys (key_id, account, secret_sha256, scopes) values ('keyaaaa00001', 'keys-only', $1, '{send}')`,
        [sha],
      );
      await client.query(
        `insert into domains (id, account, name, return_path_domain) values ($1, 'domain-only', 'd.test', 'b.d.test')`,
        [randomUUID()],
      );
      await client.query(
        `with t as (insert into templates (id, account, name, current_version) values ($1, 'template-only', 't', 1))
         insert into template_versions (template_id, version, subject, text) values ($1, 1, 's', 't')`,
        [randomUUID()],
      );
      await client.query(
        `insert into webhook_endpoints (id, account, url) values ($1, 'endpoint-only', 'https://h.test/')`,
        [randomUUID()],
      );
      const emailId = randomUUID();
      await client.query(
        `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                             message_id_header, text)
         values ($1, 'email-only', 'keyaaaa00001', 'delivered', 'a@d.test', '{b@d.test}', 's', 'c', '<m@d.test>', 't')`,
        [emailId],
      );
      await client.query(
        `insert into suppressions (account, address, reason) values ('suppression-only', 'x@y.test', 'manual')`,
      );
      await client.query(
        `insert into idempotency_keys (account, key, body_sha256, email_id) values ('idempotency-only', 'k', $1, $2)`,
        [sha, emailId],
      );
      await client.query(
        `insert into webhook_events (id, account, type, stream, data) values ($1, 'event-only', 'email.sent', 's', '{}')`,
        [randomUUID()],
      );
      await migrate({ url });
      expect(await accounts(client)).toEqual([
        "domain-only",
        "email-only",
        "endpoint-only",
        "event-only",
        "idempotency-only",
        "keys-only",
        "suppression-only",
        "template-only",
      ]);
    });
  });

  it("gives a new account its row in the statement that creates its first key, domain, template or endpoint", async () => {
    await createKey(db.pool, { account: "new-by-key", scopes: ["send"], expires: "never" });
    await createKey(db.pool, { account: "new-by-key", scopes: ["domains"], expires: "never" });
    await createTemplate(db.pool, { account: "new-by-template", name: "t", subject: "s", text: "t" });
    await createEndpoint(
      db.pool,
      { account: "new-by-endpoint", url: "http://127.0.0.1:9/hook" },
      { ssrf: createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] }) },
    );
    expect(await accounts(db.pool)).toEqual(["new-by-endpoint", "new-by-key", "new-by-template"]);
    // No resource without its account's row.
    await expect(
      db.pool.query(
        `insert into api_keys (key_id, account, secret_sha256, scopes) values ('keyzzzz00001', 'nobody', $1, '{send}')`,
        [Buffer.alloc(32)],
      ),
    ).rejects.toThrow(/api_keys_account_fkey/);
  });

  it("authenticates with ONE statement that also returns the account's row, whose limit then applies", async () => {
    const { fullKey } = await createKey(db.pool, { account: "authed", scopes: ["send"], expires: "never" });
    const statements: string[] = [];
    const counting: Queryable = {
      query: ((...args: Parameters<Queryable["query"]>) => {
        const [first] = args;
        statements.push(typeof first === "string" ? first : (first as { text: string }).text);
        return (db.pool.query as (...a: unknown[]) => unknown)(...args);
      }) as Queryable["query"],
    };
    const authenticate = createRequestAuthenticator(counting, { perKey: 0, perAccount: 100 });
    const at = new Date("2030-01-01T00:00:00.500Z");
    const first = await authenticate(`Bearer ${fullKey}`, at);
    expect(statements).toHaveLength(1);
    expect(first.account).toMatchObject({
      account: "authed",
      sandbox: false,
      sendingStatus: "active",
      paused: null,
      rateLimitPerSecond: null,
    });
    expect(first.rateLimit).toMatchObject({ policy: "account", limit: 100, remaining: 99 });

    // The account's own limit, read by that same statement, replaces the installation's.
    await db.pool.query("update accounts set rate_limit_per_second = 2 where account = 'authed'");
    const second = await authenticate(`Bearer ${fullKey}`, new Date("2030-01-01T00:00:01.500Z"));
    expect(second.account.rateLimitPerSecond).toBe(2);
    expect(second.rateLimit).toMatchObject({ policy: "account", limit: 2, remaining: 1, allowed: true });
    await authenticate(`Bearer ${fullKey}`, new Date("2030-01-01T00:00:01.600Z"));
    const fourth = await authenticate(`Bearer ${fullKey}`, new Date("2030-01-01T00:00:01.700Z"));
    expect(fourth.rateLimit).toMatchObject({ allowed: false, limit: 2 });
    expect(statements).toHaveLength(4);
  });
});
