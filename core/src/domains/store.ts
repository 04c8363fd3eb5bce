import { randomUUID } from "node:crypto";
import { recordAuditEvent } from "../audit/record.ts";
import type { AuditContext } from "../audit/types.ts";
import type { Pool, PoolClient, Queryable } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import { MailroomError } from "../errors/index.ts";
import { emitEvents } from "../webhooks/outbox.ts";
import { encryptSecret } from "./crypto.ts";
import { refuseRetiredSelectors } from "./delete.ts";
import { dkimRecordName, generateDkimKey, selectorsFor } from "./dkim.ts";
import {
  buildDnsRecords,
  normalizeDomainName,
  type RecordOptions,
  returnPathDomainFor,
  storedName,
} from "./records.ts";
import { DOMAIN_SELECT, type DomainRow, toDomainRecord } from "./rows.ts";
import { nextCheckAt } from "./schedule.ts";
import type { DkimAlgorithm, DomainRecord, RecordCheck, VerificationStatus } from "./types.ts";
import { deriveDomainStatus } from "./verify.ts";

export interface CreateDomainInput {
  account: string;
  name: string;
  /** DKIM keys to make; RSA always comes first. Defaults to `["rsa"]`. */
  algorithms?: readonly DkimAlgorithm[];
  /**
   * The RSA key's DKIM selector (a DNS label); an Ed25519 key gets `<selector>-ed25519`. Generated
   * (`mr-YYYYMM-<random>`) when omitted.
   */
  selector?: string;
  records?: RecordOptions;
  /** Scheduled DKIM rotation, days (0: off); 180 when omitted (rotation/request.ts). */
  rotationIntervalDays?: number;
  now?: Date;
  /** Who declares it: `operator` for a SendingDomain, whose domain the API then refuses to delete. */
  managedBy?: "api" | "operator";
  /** Who adds it: recorded in the audit trail in the same transaction. */
  by?: AuditContext | undefined;
}

const CLAIMED_ELSEWHERE = "Another account has already verified this domain.";
// RFC 1035 §2.3.4, in presentation form without the trailing dot.
const MAX_DNS_NAME_LENGTH = 253;

/** The associated data binding a DKIM private key's ciphertext to its row. */
export function keyAssociatedData(keyId: string): string {
  return `mailroom:dkim-key:${keyId}`;
}

/**
 * Creates a domain in an account with fresh DKIM keys (private halves encrypted under `kek`) and the DNS
 * records to publish, all `pending`. Throws `validation_error` for a bad name, `conflict` when the account
 * already has it. Other accounts' claims are not consulted here; see the migration for how they resolve.
 */
export async function createDomain(pool: Pool, kek: Buffer, input: CreateDomainInput): Promise<DomainRecord> {
  const name = normalizeDomainName(input.name);
  const now = input.now ?? new Date();
  const algorithms = [...new Set<DkimAlgorithm>(["rsa", ...(input.algorithms ?? [])])];
  const selectors = selectorsFor(algorithms, input.selector, now);
  for (const selector of selectors.values()) {
    if (dkimRecordName(selector, name).length > MAX_DNS_NAME_LENGTH) {
      throw new MailroomError(
        "validation_error",
        `DKIM selector "${selector}" makes ${dkimRecordName(selector, name)} longer than ${MAX_DNS_NAME_LENGTH} characters.`,
      );
    }
  }
  const keys = await Promise.all(
    algorithms.map(async (algorithm) => ({
      id: randomUUID(),
      selector: selectors.get(algorithm) ?? "",
      ...(await generateDkimKey(algorithm)),
    })),
  );
  const domainId = randomUUID();
  const returnPathDomain = returnPathDomainFor(name);
  const records = buildDnsRecords(name, returnPathDomain, keys, input.records);
  try {
    await withTransaction(pool, async (client) => {
      await refuseRetiredSelectors(
        client,
        input.account,
        name,
        keys.map((k) => k.selector),
      );
      await client.query(
        `insert into domains (id, account, name, return_path_domain, created_at, next_check_at,
                              dkim_rotation_interval_days, managed_by)
         values ($1, mailroom_ensure_account($2), $3, $4, $5, $5, coalesce($6, 180), $7)`,
        [
          domainId,
          input.account,
          name,
          returnPathDomain,
          now,
          input.rotationIntervalDays ?? null,
          input.managedBy ?? "api",
        ],
      );
      for (const key of keys) {
        const encrypted = encryptSecret(kek, key.privateKeyDer, keyAssociatedData(key.id));
        key.privateKeyDer.fill(0);
        await client.query(
          `insert into dkim_keys (id, domain_id, selector, algorithm, public_key, private_key_encrypted, created_at,
                                  activated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [key.id, domainId, key.selector, key.algorithm, key.publicKey, encrypted, now],
        );
      }
      for (const record of records) {
        await client.query(
          `insert into domain_dns_records (domain_id, purpose, type, name, value, required)
           values ($1, $2, $3, $4, $5, $6)`,
          [domainId, record.purpose, record.type, record.name, record.value, record.required],
        );
      }
      if (input.by)
        await recordAuditEvent(client, input.by, {
          account: input.account,
          action: "domain.created",
          target: name,
        });
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new MailroomError("conflict", `The domain ${name} already exists in this account.`, {
        cause: error,
      });
    }
    throw error;
  }
  const created = await getDomainById(pool, domainId);
  if (!created) throw new Error("created domain vanished before it could be read back");
  return created;
}

/** One domain of an account by name (normalised, IDN or not), or undefined. */
export async function getDomain(
  db: Queryable,
  account: string,
  name: string,
): Promise<DomainRecord | undefined> {
  const { rows } = await db.query<DomainRow>(`${DOMAIN_SELECT} where d.account = $1 and d.name = $2`, [
    account,
    storedName(name) ?? "",
  ]);
  return rows[0] ? toDomainRecord(rows[0]) : undefined;
}

/** One domain by id, whatever its account: for background jobs, never for a tenant's request. */
export async function getDomainById(db: Queryable, id: string): Promise<DomainRecord | undefined> {
  const { rows } = await db.query<DomainRow>(`${DOMAIN_SELECT} where d.id = $1`, [id]);
  return rows[0] ? toDomainRecord(rows[0]) : undefined;
}

/** An account's domains, by name. */
export async function listDomains(db: Queryable, account: string): Promise<DomainRecord[]> {
  const { rows } = await db.query<DomainRow>(`${DOMAIN_SELECT} where d.account = $1 order by d.name`, [
    account,
  ]);
  return rows.map(toDomainRecord);
}

/** What recording a check changed: `transition` is set when the domain entered or left `verified`. */
export interface VerificationOutcome {
  domain: DomainRecord;
  previousStatus: VerificationStatus;
  transition: "verified" | "failed" | undefined;
}

async function setDomainStatus(
  client: PoolClient,
  id: string,
  status: VerificationStatus,
  reason: string | null,
  now: Date,
  next: Date,
): Promise<void> {
  await client.query(
    `update domains set status = $2, status_reason = $3, last_checked_at = $4, next_check_at = $5,
       verified_at = case when $2 = 'verified' then coalesce(verified_at, $4) else null end
     where id = $1`,
    [id, status, reason, now, next],
  );
}

/**
 * Stores the outcome of a check: each record's status, the derived domain status and the next check time,
 * atomically. A domain whose records pass while another account holds the name verified becomes `failed`
 * with that reason (the unique index decides races). Returns undefined when the domain was deleted meanwhile.
 */
export async function recordVerification(
  pool: Pool,
  domainId: string,
  checks: readonly RecordCheck[],
  now: Date = new Date(),
  by?: AuditContext,
): Promise<VerificationOutcome | undefined> {
  const previous = await withTransaction(pool, async (client) => {
    const { rows } = await client.query<{
      status: VerificationStatus;
      created_at: Date;
      account: string;
      name: string;
    }>(`select status, created_at, account, name from domains where id = $1 for update`, [domainId]);
    const locked = rows[0];
    if (!locked) return undefined;
    const { rows: required } = await client.query<{ purpose: string; name: string }>(
      `select purpose, name from domain_dns_records where domain_id = $1 and required`,
      [domainId],
    );
    // Judging a domain on part of its required records would verify it too early.
    const unchecked = required.filter(
      (r) => !checks.some((c) => c.purpose === r.purpose && c.name === r.name),
    );
    if (unchecked.length > 0) throw new Error(`no check given for required record ${unchecked[0]?.name}`);
    for (const check of checks) {
      await client.query(
        `update domain_dns_records set status = $4, reason = $5, last_checked_at = $6
         where domain_id = $1 and purpose = $2 and name = $3`,
        [domainId, check.purpose, check.name, check.status, check.reason, now],
      );
    }
    const status = deriveDomainStatus(locked.status, checks);
    const next = nextCheckAt(status, locked.created_at, now);
    let final: VerificationStatus = status;
    let reason: string | null = null;
    if (status !== "verified") {
      await setDomainStatus(client, domainId, status, null, now, next);
    } else {
      await client.query("savepoint claim");
      try {
        await setDomainStatus(client, domainId, status, null, now, next);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        await client.query("rollback to savepoint claim");
        final = "failed";
        reason = CLAIMED_ELSEWHERE;
        await setDomainStatus(
          client,
          domainId,
          "failed",
          reason,
          now,
          nextCheckAt("failed", locked.created_at, now),
        );
      }
    }
    // The event is written with the status change it reports (outbox), so neither exists without the other.
    if ((final === "verified" || final === "failed") && final !== locked.status) {
      const failedRecords = checks
        .filter((c) => c.status === "failed")
        .map((c) => ({ name: c.name, reason: c.reason }));
      await emitEvents(client, [
        {
          account: locked.account,
          type: `domain.${final}`,
          data: { domainId, domain: locked.name, status: final, reason, failedRecords },
        },
      ]);
      const verified = { account: locked.account, action: "domain.verified", target: locked.name } as const;
      if (by && final === "verified") await recordAuditEvent(client, by, verified);
    }
    return locked.status;
  });
  if (previous === undefined) return undefined;
  const domain = await getDomainById(pool, domainId);
  if (!domain) return undefined;
  const transition =
    domain.status === "verified" && previous !== "verified"
      ? "verified"
      : domain.status === "failed" && previous !== "failed"
        ? "failed"
        : undefined;
  return { domain, previousStatus: previous, transition };
}

/**
 * The account's verified domain for a From address (exact domain match, case-insensitive), its own or a
 * shared one granted to it (grants.ts), or undefined. Sub-domains are not covered by their parent: each
 * sending domain is added and verified on its own.
 */
export async function findVerifiedDomain(
  db: Queryable,
  account: string,
  fromAddress: string,
): Promise<DomainRecord | undefined> {
  const at = fromAddress.lastIndexOf("@");
  const domain = storedName(at === -1 ? fromAddress : fromAddress.slice(at + 1).replace(/>$/, ""));
  if (!domain) return undefined;
  const { rows } = await db.query<DomainRow>(
    `${DOMAIN_SELECT} where d.name = $2 and d.status = 'verified' and (d.account = $1
       or exists (select 1 from domain_grants g where g.domain_id = d.id and g.account = $1))`,
    [account, domain],
  );
  return rows[0] ? toDomainRecord(rows[0]) : undefined;
}
