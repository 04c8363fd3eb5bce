import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDomain } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, markDomainVerified, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack, TEST_KEK } from "../support/stack.ts";
import { findManifest, type RenderOptions, renderChart } from "./support/helm.ts";

// The chart's `helm test` pod as rendered by the real helm (its script from the ConfigMap, its environment from
// the Pod), run here as the pod would: plain Node, the key in a file, the CA through NODE_EXTRA_CA_CERTS,
// against the real API (from-domain rule on, as the chart's default) and worker delivering to a real SMTP server.
const FULL = "mr-mailroom";

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let dir: string;
let keyFile: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "false" } });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "2" });
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-helm-test-"));
  // The operator writes the key of the test's ApiKey into the release's namespace, its account.
  const { fullKey } = await createKey(db.pool, { account: "mail", scopes: ["send"], expires: "never" });
  keyFile = path.join(dir, "apiKey");
  await writeFile(keyFile, `${fullKey}\n`);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
  await sink.close();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

/** The rendered test pod's script and environment, run against `target` instead of the in-cluster Service. */
async function runRenderedTest(render: RenderOptions, target: ApiStack = api, key = keyFile) {
  const manifests = await renderChart(render);
  const pod = findManifest(manifests, "Pod", `${FULL}-helm-test-send`);
  const script = findManifest(manifests, "ConfigMap", `${FULL}-helm-test-script`).data["send-email.mjs"];
  const run = Math.random().toString(36).slice(2);
  const scriptFile = path.join(dir, `send-email-${run}.mjs`);
  await writeFile(scriptFile, script);
  const caFile = path.join(dir, `ca-${run}.crt`);
  await writeFile(caFile, target.ca);
  const podEnv = Object.fromEntries(
    (pod.spec.containers[0].env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]),
  );
  return new Promise<{ code: number; stdout: string; stderr: string; env: Record<string, string> }>(
    (resolve) => {
      execFile(
        process.execPath,
        [scriptFile],
        {
          timeout: 60_000,
          env: {
            PATH: process.env.PATH ?? "",
            ...podEnv,
            MAILROOM_URL: target.server.url,
            NODE_EXTRA_CA_CERTS: caFile,
            TEST_API_KEY_FILE: key,
            TEST_RETRY_DELAY_MS: "100",
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, env: podEnv }),
      );
    },
  );
}

describe("helm test pod", () => {
  it("on a default install checks the API without sending: an unverified from-domain gets 422", async () => {
    const result = await runRenderedTest({});
    expect(result.env.TEST_FROM).toBe("");
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("a send from an unverified domain is refused (422)");
    expect(result.stdout).toContain("the email log answers");
    expect(result.stdout).toContain("helm test: OK (no email sent");
    expect(result.code).toBe(0);
    const { rows } = await db.pool.query("select count(*)::int as n from emails");
    expect(rows[0].n).toBe(0);
  });

  it("with tests.from on a verified domain sends one email and waits until it is delivered", async () => {
    const domain = await createDomain(db.pool, TEST_KEK, { account: "mail", name: "acme.test" });
    // Verified through DNS in the domain tests; set directly here to test the send path alone.
    await markDomainVerified(db.pool, domain.id);
    const result = await runRenderedTest({
      set: {
        "tests.from": "helm-test@acme.test",
        "tests.to": "ops@example.test",
        "tests.waitForDelivery": "true",
        "tests.deliveryTimeoutSeconds": "30",
      },
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/accepted, queued, messageId \S+/);
    expect(result.stdout).toContain("helm test: delivered");
    expect(result.code).toBe(0);
    const [message] = await sink.waitFor(1);
    expect(message?.parsed.subject).toBe("Mailroom helm test");
    expect(message?.envelope.to).toEqual(["ops@example.test"]);
  });

  it("fails with the API's answer when the key is refused", async () => {
    const badKey = path.join(dir, "badKey");
    await writeFile(badKey, "mrk_AAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    const result = await runRenderedTest({ set: { "tests.from": "helm-test@acme.test" } }, api, badKey);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/FAILED: POST \/v1\/send answered HTTP 401: .*invalid_api_key/);
  });

  // Last: the open API lets that email in, which the tests above would count.
  it("fails when the API accepts an unverified from-domain the chart says it refuses", async () => {
    const open = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" } });
    try {
      const result = await runRenderedTest({}, open);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/FAILED: POST \/v1\/send from an unverified domain answered HTTP 200/);
    } finally {
      await open.close();
    }
  });
});
