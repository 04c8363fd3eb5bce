import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { acceptEmails, type EmailDraft, type EmailEvent, listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { acceptItem } from "./accept-item.ts";
import type { TestDatabase } from "./db.ts";
import { startWorkerStack } from "./stack.ts";
import { until } from "./wait.ts";

/** Where the direct transport finds the test's receivers, DNS and policy hosts. */
export interface DirectReach {
  dnsServer: string;
  /** The port every receiver (each on its own 127.0.0.x) listens on. */
  mxPort: number;
  mtaStsPort?: number;
  /** The test CA, in PEM, trusted besides the system's. */
  caCert?: string;
  dnssecValidating?: boolean;
}

/**
 * The real worker in direct mode (`MAILROOM_DELIVERY_MODE=direct`) reaching loopback receivers through the
 * test's DNS server, with a retry plan short enough to see an email deferred and then failed (retries 0.2 s
 * apart, given up after a second).
 */
export async function startDirectWorker(
  db: TestDatabase,
  reach: DirectReach,
  env: Record<string, string> = {},
) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-direct-"));
  const caFile = path.join(dir, "ca.pem");
  if (reach.caCert) await writeFile(caFile, reach.caCert);
  const worker = await startWorkerStack(db, "smtp://127.0.0.1:1", {
    MAILROOM_DELIVERY_MODE: "direct",
    MAILROOM_DNS_SERVERS: reach.dnsServer,
    MAILROOM_DNS_CACHE_SECONDS: "0",
    MAILROOM_DNS_VALIDATES_DNSSEC: String(reach.dnssecValidating ?? false),
    MAILROOM_DIRECT_ALLOWED_CIDRS: "127.0.0.0/8",
    MAILROOM_DIRECT_MX_PORT: String(reach.mxPort),
    ...(reach.mtaStsPort ? { MAILROOM_DIRECT_MTA_STS_PORT: String(reach.mtaStsPort) } : {}),
    ...(reach.caCert ? { MAILROOM_TLS_EXTRA_CA_FILE: caFile } : {}),
    MAILROOM_RETRY_BASE_SECONDS: "0.2",
    MAILROOM_RETRY_HORIZON_SECONDS: "1",
    ...env,
  });
  const keyId = (await createKey(db.pool, { account: "direct", scopes: ["send"], expires: "never" })).key
    .keyId;
  return {
    worker,
    /** Accepts one email of the `direct` account (as the API would) and answers its id. */
    async send(draft: Partial<EmailDraft>): Promise<string> {
      const [result] = await acceptEmails(db.pool, { hostname: "test" }, [
        acceptItem("direct", keyId, { draft }),
      ]);
      return String(result?.messageId);
    },
    async stop() {
      await worker.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The email's timeline once it has reached `status` (delivered, failed …), within 20 s. */
export async function timelineUntil(db: TestDatabase, id: string, status: string): Promise<EmailEvent[]> {
  const events = await until(
    () => listEvents(db.pool, id),
    (e) => e.some((x) => x.type === status),
    20_000,
  );
  if (!events.some((e) => e.type === status))
    throw new Error(`email ${id} never ${status}: ${events.map((e) => e.type).join(", ")}`);
  return events;
}

/**
 * The TLS-RPT counts (`tls_sessions`) of one policy domain once they add up to `total` sessions (within 5 s):
 * the deliver task counts an attempt's sessions just after recording the attempt.
 */
export async function tlsSessionCounts(db: TestDatabase, policyDomain: string, total: number) {
  const read = async () =>
    (
      await db.pool.query<{ policy_type: string; result_type: string; sessions: string }>(
        `select policy_type, result_type, sum(sessions)::text as sessions from tls_sessions
         where policy_domain = $1 group by policy_type, result_type order by result_type`,
        [policyDomain],
      )
    ).rows;
  return until(read, (rows) => rows.reduce((sum, r) => sum + Number(r.sessions), 0) >= total);
}
