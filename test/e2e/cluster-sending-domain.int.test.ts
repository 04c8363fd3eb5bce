// A ClusterSendingDomain (issue 31 item 4, ADR 0054) end to end: declared as YAML and reconciled by the
// operator's own code (`mailroom apply`), verified from real DNS, then used by the namespaces it allows
// through the API and the SMTP door, signed (mailauth judges the signature), and refused to the others.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CLUSTER_ACCOUNT, getDomain, makeTxtLookup, verifyDomain } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { createLogger } from "@mailroom/core/telemetry";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { applyManifests } from "../../operator/src/local/apply.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge, receivedFor } from "../support/mail-checks.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack, TEST_KEK } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";

const DOMAIN = "notify.shared.test";
const ENV = { MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let smtp: SubmissionStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let judge: ReturnType<typeof createMailJudge>;
let dir: string;
const keys: Record<string, string> = {};

/** Applies the ClusterSendingDomain, and the cluster's namespaces with their labels, as `mailroom apply` does. */
async function apply(names: string[], namespaces: Record<string, Record<string, string>>) {
  const docs = [
    ...Object.entries(namespaces).map(([name, labels]) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name, labels },
    })),
    {
      apiVersion: "mailroom.dev/v1alpha1",
      kind: "ClusterSendingDomain",
      metadata: { name: "notify" },
      spec: {
        domain: DOMAIN,
        allowedNamespaces: { names, selector: { matchLabels: { "mail.example/shared": "notify" } } },
      },
    },
  ];
  const file = path.join(dir, "shared.yaml");
  await writeFile(file, docs.map((d) => stringify(d)).join("---\n"));
  const log = createLogger({ level: "silent", name: "apply" });
  const [applied] = await applyManifests({ pool: db.pool, kek: TEST_KEK, dataDir: dir, log }, [file]);
  return applied;
}

/** A fresh API replica: the sender check keeps verdicts a few seconds, a new process sees a change at once. */
async function freshApi() {
  await api.close();
  api = await startApiStack(db, { env: ENV });
}

const send = (account: string, to: string) =>
  api.request("POST", "/v1/send", {
    key: keys[account] ?? "",
    body: { from: `Notices <notices@${DOMAIN}>`, to, subject: `for ${account}`, text: "Hello." },
  });

beforeAll(async () => {
  db = await createTestDatabase();
  dns = await startDnsServer();
  sink = await startSmtpSink();
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-cluster-domain-"));
  api = await startApiStack(db, { env: ENV });
  smtp = await startSubmissionStack(db, { env: ENV });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "4" });
  judge = createMailJudge(dns.address);
  for (const account of ["payments", "growth", "search"]) {
    keys[account] = (await createKey(db.pool, { account, scopes: ["send"], expires: "never" })).fullKey;
  }
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a ClusterSendingDomain shared by the namespaces it allows", () => {
  it("is reconciled into one domain of the reserved account, with the allowed namespaces as status", async () => {
    const applied = await apply(["payments"], { growth: { "mail.example/shared": "notify" }, search: {} });
    expect(applied?.synced.status).toBe("True");
    expect(applied?.status.namespaces).toEqual(["growth", "payments"]);
    const domain = await getDomain(db.pool, CLUSTER_ACCOUNT, DOMAIN);
    if (!domain) throw new Error("the operator made no domain");
    // Publish exactly what the operator asked for, then verify as the worker's recheck does.
    for (const record of domain.records) dns.setTxt(record.name, record.strings);
    const lookup = makeTxtLookup({ servers: [dns.address], timeoutMs: 2000 });
    const outcome = await verifyDomain({ db: db.pool, lookup }, domain);
    expect(outcome?.domain.status).toBe("verified");
    const reapplied = await apply(["payments"], { growth: { "mail.example/shared": "notify" }, search: {} });
    expect(reapplied?.ready).toMatchObject({ status: "True", reason: "Verified" });
  });

  it("signs mail for a namespace allowed by name and one allowed by label; mailauth passes both", async () => {
    for (const [account, to] of [
      ["payments", "payer@example.net"],
      ["growth", "lead@example.net"],
    ] as const) {
      const res = await send(account, to);
      expect(res.status, res.text).toBe(200);
      const message = await receivedFor(sink, to);
      const verdict = await judge(message);
      const dkim = verdict.dkim.results.map((r) => [r.status.result, r.signingDomain]);
      expect(dkim).toContainEqual(["pass", DOMAIN]);
      // Each namespace's own log: the email is its account's, not the domain's owner's.
      const { rows } = await db.pool.query("select account from emails where id = $1", [res.json.messageId]);
      expect(rows[0]?.account).toBe(account);
    }
  });

  it("refuses any other namespace with 403 domain_not_allowed, on the API and the SMTP door", async () => {
    const res = await send("search", "someone@example.net");
    expect(res.status).toBe(403);
    expect(res.json.error).toBe("domain_not_allowed");
    expect(String(res.json.message)).toContain("spec.allowedNamespaces");

    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.port,
      requireTLS: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "search", pass: keys.search ?? "" },
    });
    try {
      await expect(
        transport.sendMail({ from: `notices@${DOMAIN}`, to: "x@example.net", subject: "s", text: "t" }),
      ).rejects.toMatchObject({
        responseCode: 550,
        response: expect.stringMatching(/5\.7\.1 .*allowedNamespaces/),
      });
    } finally {
      transport.close();
    }
    // A domain nobody declared still answers as before.
    const unknown = await api.request("POST", "/v1/send", {
      key: keys.search ?? "",
      body: { from: "a@elsewhere.test", to: "x@example.net", subject: "s", text: "t" },
    });
    expect(unknown.json.error).toBe("domain_not_verified");
  });

  it("takes a namespace removed from the list, or whose label goes, out at the next reconcile", async () => {
    const applied = await apply([], { growth: { "mail.example/shared": "notify" }, search: {} });
    expect(applied?.status.namespaces).toEqual(["growth"]);
    await freshApi();
    const removed = await send("payments", "payer2@example.net");
    expect(removed.status).toBe(403);
    expect(removed.json.error).toBe("domain_not_allowed");
    expect((await send("growth", "lead2@example.net")).status).toBe(200);

    const relabelled = await apply([], { growth: { "mail.example/shared": "other" }, search: {} });
    expect(relabelled?.status.namespaces).toEqual([]);
    expect(relabelled?.synced.status).toBe("True");
    await freshApi();
    expect((await send("growth", "lead3@example.net")).json.error).toBe("domain_not_allowed");

    const restored = await apply(["payments"], { search: { "mail.example/shared": "notify" } });
    expect(restored?.status.namespaces).toEqual(["payments", "search"]);
    await freshApi();
    expect((await send("search", "finally@example.net")).status).toBe(200);
  });
});
