/**
 * Issue 29 item 1: 10,000 messages sent across a DKIM rotation, each verified by dkimpy against what a real
 * DNS server on loopback serves at that moment: 100 % pass. The mail goes the whole way (the batch API, the
 * delivery lane, DKIM signing, SMTP to a sink); the rotation is started through the API's rotate-now and
 * moved on by the worker's own rotate_dkim job; the test plays external-dns, serving exactly the DKIM
 * records the domain lists after each step. Waits (an hour of settling, the retire horizon) are skipped by
 * moving the stored dates back, never by a clock in the code. Each phase's duration is printed.
 */
import { getDomain } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type DkimpyResult, dkimpyUnavailable, verifyWithDkimpy } from "../support/dkimpy.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";

const DOMAIN = "rotate.test";
const PER_PHASE = 2_000;
const BATCH = 100;
const WAIT = { timeout: 120_000, interval: 100 };
const unavailable = dkimpyUnavailable();
if (unavailable) console.warn(`skipping the DKIM rotation test: ${unavailable}`);

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let domainsKey: string;
let sendKey: string;
let served: string[] = [];
let sent = 0;

beforeAll(async () => {
  if (unavailable) return;
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };
  api = await startApiStack(db, { env });
  // No signer cache: the message after a switch is signed by the new key (production keeps keys a minute,
  // which the retiring selector, published for days, covers).
  worker = await startWorkerStack(
    db,
    sink.url,
    { ...env, MAILROOM_WORKER_CONCURRENCY: "8" },
    { signerTtlMs: 0 },
  );
  domainsKey = (await createKey(db.pool, { account: "rot", scopes: ["domains"], expires: "never" })).fullKey;
  sendKey = (await createKey(db.pool, { account: "rot", scopes: ["send"], expires: "never" })).fullKey;
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
});

/** Plays external-dns: DNS serves exactly the DKIM records the domain lists now, and nothing else of them. */
async function syncDns(): Promise<string[]> {
  const domain = await getDomain(db.pool, "rot", DOMAIN);
  const records = domain?.records.filter((r) => r.purpose === "dkim") ?? [];
  for (const name of served) dns.removeName(name);
  for (const r of records) dns.setTxt(r.name, r.strings);
  served = records.map((r) => r.name);
  return domain?.dkimKeys.filter((k) => k.state === "active").map((k) => k.selector) ?? [];
}

async function keyStates(): Promise<string[]> {
  const { rows } = await db.pool.query<{ state: string }>(
    `select k.state from dkim_keys k join domains d on d.id = k.domain_id where d.name = $1 order by k.state`,
    [DOMAIN],
  );
  return rows.map((r) => r.state);
}

/** Runs the worker's rotate_dkim job now (its crontab would, within a minute) and waits for `states`. */
async function runRotationJob(states: string[]): Promise<void> {
  await db.pool.query(`update domains set dkim_rotation_check_at = now() where name = $1`, [DOMAIN]);
  await db.pool.query(`select graphile_worker.add_job('rotate_dkim', '{}'::json)`);
  await vi.waitFor(async () => expect(await keyStates()).toEqual(states), WAIT);
}

/** Sends `count` messages through the batch API; answers once every one of them reached the sink. */
async function sendMessages(count: number, phase: string): Promise<Buffer[]> {
  const first = sink.messages.length;
  for (let i = 0; i < count; i += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => ({
      from: `Rotation <hello@${DOMAIN}>`,
      to: `user${sent + i + j}@example.net`,
      subject: `${phase} #${i + j}`,
      text: `Message ${i + j} of the ${phase} phase.\n`,
    }));
    const res = await api.request("POST", "/v1/send/batch", { key: sendKey, body: items });
    expect(res.status, res.text).toBe(200);
  }
  sent += count;
  await sink.waitFor(first + count, WAIT.timeout);
  return sink.messages.slice(first, first + count).map((m) => m.raw);
}

/** dkimpy's verdicts: a message passes when it carries an RSA signature and every signature verifies. */
function tally(results: readonly DkimpyResult[]) {
  const passed = results.filter(
    (r) => r.signatures.some((s) => s.a === "rsa-sha256") && r.signatures.every((s) => s.ok),
  ).length;
  const selectors = new Map<string, number>();
  for (const r of results) for (const s of r.signatures) selectors.set(s.s, (selectors.get(s.s) ?? 0) + 1);
  return { passed, selectors: Object.fromEntries(selectors) };
}

/** Per phase: the whole phase, and the dkimpy verification within it (ms). */
const durations: Record<string, { total: number; verify: number }> = {};
async function phase<T>(name: string, run: (name: string) => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run(name);
  } finally {
    const total = Math.round(performance.now() - started);
    durations[name] = { total, verify: durations[name]?.verify ?? 0 };
  }
}
async function verify(name: string, raw: readonly Buffer[]) {
  const started = performance.now();
  const verdict = tally(await verifyWithDkimpy(raw, dns.address));
  durations[name] = { total: 0, verify: Math.round(performance.now() - started) };
  return verdict;
}

describe.skipIf(unavailable)("DKIM rotation under load", () => {
  it("signs 10,000 messages across a rotation, every one passing dkimpy against live DNS", async () => {
    const created = await api.request("POST", "/v1/domains", {
      key: domainsKey,
      body: { name: DOMAIN, algorithms: ["rsa", "ed25519"] },
    });
    expect(created.status, created.text).toBe(201);
    const [oldRsa, oldEd] = await syncDns();
    const verified = await api.request("POST", `/v1/domains/${DOMAIN}/verify`, { key: domainsKey });
    expect(verified.json.status).toBe("verified");

    // 1. Stable: the first pair signs.
    const stable = await phase("1 stable", async (name) => {
      const raw = await sendMessages(PER_PHASE, "stable");
      return { raw, verdict: await verify(name, raw) };
    });
    expect(stable.verdict).toEqual({
      passed: PER_PHASE,
      selectors: { [`${oldRsa}`]: PER_PHASE, [`${oldEd}`]: PER_PHASE },
    });

    // 2. Rotate now: a new pair is published, but signing stays on the old one until DNS has served it.
    const rotated = await api.request("POST", `/v1/domains/${DOMAIN}/dkim/rotate`, {
      key: domainsKey,
      body: {},
    });
    expect(rotated.status, rotated.text).toBe(200);
    await syncDns();
    const publishing = await phase("2 publishing", async (name) => {
      const raw = await sendMessages(PER_PHASE, "publishing");
      return { raw, verdict: await verify(name, raw) };
    });
    expect(publishing.verdict).toEqual({
      passed: PER_PHASE,
      selectors: { [`${oldRsa}`]: PER_PHASE, [`${oldEd}`]: PER_PHASE },
    });

    // The job sees the new keys served; an hour later (dates moved back) they may sign.
    await runRotationJob(["active", "active", "pending", "pending"]);
    await vi.waitFor(async () => {
      const { rows } = await db.pool.query(
        `select 1 from dkim_keys where state = 'pending' and served_at is null`,
      );
      expect(rows).toEqual([]);
    }, WAIT);
    await db.pool.query(
      `update dkim_keys set served_at = served_at - interval '2 hours' where state = 'pending'`,
    );

    // 3. The switch, while mail flows: half sent and partly delivered before it, half after.
    const switching = await phase("3 switch under load", async (name) => {
      const before = sendMessages(PER_PHASE / 2, "switch-before");
      await sink.waitFor(sink.messages.length + PER_PHASE / 4, WAIT.timeout);
      await runRotationJob(["active", "active", "retiring", "retiring"]);
      const raw = [...(await before), ...(await sendMessages(PER_PHASE / 2, "switch-after"))];
      return { raw, verdict: await verify(name, raw) };
    });
    const [newRsa, newEd] = await syncDns();
    expect(newRsa).not.toBe(oldRsa);
    expect(switching.verdict.passed).toBe(PER_PHASE);
    expect(switching.verdict.selectors[`${oldRsa}`]).toBeGreaterThanOrEqual(PER_PHASE / 4);
    expect(switching.verdict.selectors[`${newRsa}`]).toBeGreaterThanOrEqual(PER_PHASE / 2);

    // 4. Retiring: the new pair signs; mail signed by the old one (a late retry, a slow verifier) still passes.
    const retiring = await phase("4 retiring", async (name) => {
      const raw = await sendMessages(PER_PHASE, "retiring");
      return { raw, verdict: await verify(name, raw) };
    });
    expect(retiring.verdict).toEqual({
      passed: PER_PHASE,
      selectors: { [`${newRsa}`]: PER_PHASE, [`${newEd}`]: PER_PHASE },
    });
    const late = tally(await verifyWithDkimpy(publishing.raw, dns.address));
    expect(late.passed).toBe(PER_PHASE);

    // 5. Past the retire horizon (dates moved back) the old pair is withdrawn from DNS and deleted.
    await db.pool.query(`update dkim_keys set withdraw_at = now() where state = 'retiring'`);
    await runRotationJob(["active", "active"]);
    await syncDns();
    const withdrawn = await phase("5 withdrawn", async (name) => {
      const raw = await sendMessages(PER_PHASE, "withdrawn");
      return { raw, verdict: await verify(name, raw) };
    });
    expect(withdrawn.verdict).toEqual({
      passed: PER_PHASE,
      selectors: { [`${newRsa}`]: PER_PHASE, [`${newEd}`]: PER_PHASE },
    });
    // The verifier really asks DNS: mail signed by the withdrawn pair fails now.
    expect(tally(await verifyWithDkimpy(stable.raw.slice(0, 20), dns.address)).passed).toBe(0);

    const total = [stable, publishing, switching, retiring, withdrawn].reduce(
      (n, p) => n + p.verdict.passed,
      0,
    );
    expect(total).toBe(5 * PER_PHASE);
    console.warn(
      `DKIM rotation: ${total}/${sent} messages passed dkimpy; phase durations (ms; total = send + deliver + verify):`,
      durations,
    );
  }, 600_000);
});
