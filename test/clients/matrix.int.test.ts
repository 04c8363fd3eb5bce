import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { createMailJudge, receivedFor } from "../support/mail-checks.ts";
import { type PostfixRelay, postfixUnavailable, startPostfixRelay } from "../support/postfix-relay.ts";
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";
import { CLIENTS, type Client, type ClientContext } from "./clients.ts";
import { type Attachment, type ClientSpec, differences, type Mode, messagesFor } from "./messages.ts";

// Issue 25: the mail clients apps already use, each used as its users use it, send through the submission
// door over STARTTLS and implicit TLS; every message must arrive at the sink intact and pass an independent
// DKIM verifier (mailauth). One Mailroom stack for the file; the clients run a few at a time.
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const DOMAIN = "clients.test";
const FROM = `Jörg Müller <app@${DOMAIN}>`;
const MODES: Mode[] = ["starttls", "tls"];
// In CI every client must run: a missing runtime fails its test instead of skipping it.
const STRICT = Boolean(process.env.CI) && process.env.CI !== "false";

let db: TestDatabase;
let dns: TestDnsServer;
let sink: SmtpSink;
let api: ApiStack;
let smtp: SubmissionStack;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let judge: ReturnType<typeof createMailJudge>;
let key: string;
let context: ClientContext;
let attachment: Attachment;
let attachmentBytes: Buffer;

beforeAll(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-clients-"));
  const [{ stdout: cache }] = await Promise.all([
    run(path.join(ROOT, "scripts/build-test-clients.sh"), [], { cwd: ROOT, timeout: 600_000 }),
    (async () => {
      db = await createTestDatabase();
      dns = await startDnsServer();
      sink = await startSmtpSink();
    })(),
  ]);
  const env = { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_ALLOW_UNVERIFIED_FROM: "false" };
  api = await startApiStack(db, { env });
  smtp = await startSubmissionStack(db, { env });
  worker = await startWorkerStack(db, sink.url, { MAILROOM_WORKER_CONCURRENCY: "8" });
  judge = createMailJudge(dns.address);
  const domainsKey = (await createKey(db.pool, { account: "clients", scopes: ["domains"], expires: "never" }))
    .fullKey;
  key = (await createKey(db.pool, { account: "clients", scopes: ["send"], expires: "never" })).fullKey;
  const created = await api.request("POST", "/v1/domains", { key: domainsKey, body: { name: DOMAIN } });
  for (const record of created.json.records as Array<{ name: string; strings: string[] }>) {
    dns.setTxt(record.name, record.strings);
  }
  const verified = await api.request("POST", `/v1/domains/${DOMAIN}/verify`, { key: domainsKey });
  expect(verified.json.status).toBe("verified");
  attachmentBytes = Buffer.concat([Buffer.from("%PDF-1.4\n"), randomBytes(3000)]);
  attachment = { filename: "report.pdf", path: path.join(dir, "report.pdf"), contentType: "application/pdf" };
  await writeFile(attachment.path, attachmentBytes);
  await writeFile(path.join(dir, "key"), key);
  const trustStore = path.join(dir, "ca.p12");
  if (!CLIENTS.find((c) => c.name === "jakarta-mail")?.missing()) {
    await run(
      "keytool",
      ["-importcert", "-noprompt", "-alias", "mailroom", "-file", smtp.caFile].concat([
        "-keystore",
        trustStore,
        "-storetype",
        "PKCS12",
        "-storepass",
        "changeit",
      ]),
    );
  }
  context = { dir, cache: cache.trim(), trustStore };
}, 900_000);
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await sink?.close();
  await dns?.close();
  await db?.drop();
  if (context) await rm(context.dir, { recursive: true, force: true });
});

function specFor(client: string, mode: Mode | "plain", port: number): ClientSpec {
  return {
    host: "localhost",
    port,
    mode,
    ca: smtp.caFile,
    user: `${client}-app`,
    key,
    from: FROM,
    messages: messagesFor(client, mode, attachment),
  };
}

const arrived = (recipient: string) => receivedFor(sink, recipient, 60_000);

async function dkim(message: ReceivedMessage): Promise<string[]> {
  const verdict = await judge(message);
  return verdict.dkim.results.map((r) => `${r.status.result} ${r.signingDomain}`);
}

/** Every message of a spec as the sink got it: [] when intact and signed, else what is wrong with each. */
async function check(spec: ClientSpec): Promise<string[]> {
  const problems: string[] = [];
  for (const m of spec.messages) {
    for (const recipient of [...m.to, ...m.cc, ...m.bcc]) {
      const got = await arrived(recipient);
      const wrong = differences(m, recipient, got, attachmentBytes);
      const verdicts = await dkim(got);
      if (JSON.stringify(verdicts) !== JSON.stringify([`pass ${DOMAIN}`]))
        wrong.push(`DKIM ${verdicts.join(", ")}`);
      if (wrong.length > 0) problems.push(`${m.kind}: ${wrong.join("; ")}`);
    }
  }
  return problems;
}

/** A client's test: skipped outside CI when its runtime is missing (said why), failed in CI. */
function clientTest(client: Pick<Client, "name" | "missing">, body: () => Promise<void>) {
  const missing = client.missing();
  if (missing && !STRICT)
    console.warn(`skipping the ${client.name} client: ${missing} (make system-packages)`);
  it.skipIf(Boolean(missing) && !STRICT)(client.name, async () => {
    if (missing)
      throw new Error(
        `${client.name} cannot run: ${missing}; scripts/install-system-packages.sh installs it`,
      );
    await body();
  });
}

describe.each(MODES)("real SMTP clients over %s: each message arrives intact and DKIM-signed", (mode) => {
  // The test of each client sends and checks its own messages; the clients of a mode run together.
  describe.concurrent("clients", { timeout: 300_000 }, () => {
    for (const client of CLIENTS) {
      clientTest(client, async () => {
        const spec = specFor(client.name, mode, mode === "tls" ? smtp.tlsPort : smtp.port);
        await client.send(spec, context);
        expect(await check(spec)).toEqual([]);
      });
    }

    clientTest({ name: "postfix-sasl-relay", missing: postfixUnavailable }, async () => {
      // A legacy app hands its mail to a local Postfix, which relays it to Mailroom with SASL over TLS.
      let relay: PostfixRelay | undefined;
      try {
        relay = await startPostfixRelay({
          sinkPort: sink.port,
          bounceDomains: [],
          receiverPort: 0,
          relayhost: {
            port: mode === "tls" ? smtp.tlsPort : smtp.port,
            mode,
            user: "postfix",
            password: key,
            caFile: smtp.caFile,
          },
        });
        const spec = specFor("postfix", mode, Number(new URL(relay.url).port));
        await run("/usr/bin/python3", [
          path.join(import.meta.dirname, "programs/python_send_message.py"),
          await plainSpec(spec),
        ]);
        expect(await check(spec).catch((e: Error) => [`${e.message}\n${relay?.log().slice(-3000)}`])).toEqual(
          [],
        );
      } finally {
        await relay?.stop();
      }
    });
  });
});

/** The spec for the app in front of Postfix: no TLS, no login, straight to Postfix on loopback. */
async function plainSpec(spec: ClientSpec): Promise<string> {
  const file = path.join(context.dir, `postfix-${spec.mode}.json`);
  await writeFile(file, JSON.stringify({ ...spec, host: "127.0.0.1", mode: "plain", key: "" }));
  return file;
}
