import { createKey } from "@mailroom/core/keys";
import type { JobHelpers } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../../../test/support/db.ts";
import type { WorkerDeps } from "../deps.ts";
import { makePurgeTask } from "./purge.ts";

// The purge job's wiring (ADR 0043): it makes the timeline's weekly partitions ahead, and an account's own
// retention applies even when the installation keeps emails forever (MAILROOM_EMAIL_RETENTION_DAYS=0).
describe("purge_expired", () => {
  it("makes the log's and the timeline's partitions ahead and applies an account's own retention", async () => {
    const db = await createTestDatabase();
    try {
      const { key } = await createKey(db.pool, { account: "brief", scopes: ["send"], expires: "never" });
      await db.pool.query("update accounts set retention_days = 1 where account = 'brief'");
      const insert = (id: string, status: string) =>
        db.pool.query(
          `insert into emails (id, account, api_key_id, status, from_header, to_addresses, subject, category,
                               message_id_header, text, created_at, updated_at)
           values ($1, 'brief', $2, $3, 'a@d.test', '{b@d.test}', 's', 'c', '<m@d.test>', 't',
                   now() - interval '3 days', now() - interval '3 days')`,
          [id, key.keyId, status],
        );
      // UUIDv7 ids of three days ago: past the account's one day.
      const old = async (n: number) =>
        (
          await db.pool.query<{ id: string }>(
            `select (substr(mailroom_uuidv7_floor(now() - interval '3 days')::text, 1, 24) || lpad($1::text, 12, '0'))::uuid as id`,
            [n],
          )
        ).rows[0]?.id as string;
      const [finished, unsent] = [await old(1), await old(2)];
      await insert(finished, "delivered");
      await insert(unsent, "queued");
      const deps = {
        pool: db.pool,
        config: {
          limits: { idempotencyRetentionHours: 24, emailRetentionDays: 0 },
          inbound: { reportRetentionHours: 720 },
          audit: { retentionDays: 0 },
        },
      } as unknown as WorkerDeps;
      const lines: string[] = [];
      const helpers = { logger: { info: (line: string) => lines.push(line) } } as unknown as JobHelpers;
      await makePurgeTask(deps)({}, helpers);

      const { rows } = await db.pool.query<{ id: string }>("select id from emails where account = 'brief'");
      expect(rows.map((r) => r.id)).toEqual([unsent]);
      const { rows: weeks } = await db.pool.query("select name from mailroom_email_event_partition_bounds()");
      expect(weeks).toHaveLength(5);
      // The log's weeks ahead (a new installation's are made by migration 0152, then by this job; ADR 0055).
      const { rows: logWeeks } = await db.pool.query<{ n: number }>(
        "select count(*)::int as n from mailroom_email_partition_bounds() where lower_id > mailroom_uuidv7_floor(now())",
      );
      expect(logWeeks[0]?.n).toBe(4);
      expect(lines.join("\n")).toMatch(/1 email\(s\).*partitions made: .*email_events_\d{8}/);
    } finally {
      await db.drop();
    }
  });

  // Issue 33 item 4 (ADR 0062): the audit trail is kept MAILROOM_AUDIT_RETENTION_DAYS, then purged by this job.
  it("purges audit rows past MAILROOM_AUDIT_RETENTION_DAYS and keeps the newer ones", async () => {
    const db = await createTestDatabase();
    try {
      const by = { actor: { kind: "cli", id: "root" } } as const;
      await createKey(db.pool, { account: "kept", scopes: ["send"], expires: "never", by });
      await createKey(db.pool, { account: "old", scopes: ["send"], expires: "never", by });
      await db.pool.query("update audit_events set at = now() - interval '8 days' where account = 'old'");
      const deps = {
        pool: db.pool,
        config: {
          limits: { idempotencyRetentionHours: 24, emailRetentionDays: 0 },
          inbound: { reportRetentionHours: 720 },
          audit: { retentionDays: 7 },
        },
      } as unknown as WorkerDeps;
      const lines: string[] = [];
      const helpers = { logger: { info: (line: string) => lines.push(line) } } as unknown as JobHelpers;
      await makePurgeTask(deps)({}, helpers);

      const { rows } = await db.pool.query("select account, action from audit_events");
      expect(rows).toEqual([{ account: "kept", action: "key.created" }]);
      expect(lines.join("\n")).toMatch(/1 audit row\(s\)/);
    } finally {
      await db.drop();
    }
  });
});
