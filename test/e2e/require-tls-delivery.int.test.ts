import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { listEvents } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";

// The relay is a plain SMTP sink (no STARTTLS), as the local capture is: fine for ordinary mail, never for
// an email sent with requireTls. Retries come fractions of a second apart and stop after a second.
let db: TestDatabase;
let api: ApiStack;
let smtp: SubmissionStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db, { env: { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" } });
  smtp = await startSubmissionStack(db);
  worker = await startWorkerStack(db, sink.url, {
    MAILROOM_RETRY_BASE_SECONDS: "0.2",
    MAILROOM_RETRY_HORIZON_SECONDS: "1",
  });
  ({ fullKey: key } = await createKey(db.pool, { account: "default", scopes: ["send"], expires: "never" }));
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await smtp?.close();
  await sink?.close();
  await db?.drop();
});

async function waitForStatus(id: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.pool.query(
      "select status, last_smtp_response, require_tls from emails where id = $1",
      [id],
    );
    if (rows[0]?.status === status) return rows[0];
    if (Date.now() > deadline) throw new Error(`email ${id} is ${rows[0]?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function send(body: Record<string, unknown>) {
  const res = await api.request("POST", "/v1/send", {
    key,
    body: { from: "app@acme.test", to: "ann@example.test", subject: "tls", text: "Hello", ...body },
  });
  return res;
}

async function tlsCount(mechanism: string, result: string): Promise<number> {
  const metric = await worker.metrics.deliveryTls.get();
  const value = metric.values.find((v) => v.labels.mechanism === mechanism && v.labels.result === result);
  return value?.value ?? 0;
}

describe("requireTls (RFC 8689) through the API, the worker and the relay", () => {
  it("is refused with 400 when it is not a boolean", async () => {
    const res = await send({ requireTls: "yes" });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: expect.any(String),
      message: expect.stringMatching(/requireTls/),
    });
  });

  it("defers an email that requires TLS over a plain relay, then fails it with the reason", async () => {
    const res = await send({ requireTls: true, subject: "must be encrypted" });
    expect(res.status).toBe(200);
    const id = res.json.messageId as string;
    const failed = await waitForStatus(id, "failed");
    expect(failed.require_tls).toBe(true);
    expect(failed.last_smtp_response).toMatch(/^ann@example\.test: REQUIRETLS: 127\.0\.0\.1: no TLS/);
    const timeline = (await listEvents(db.pool, id)).map((e) => e.type);
    expect(timeline).toContain("deferred");
    expect(timeline.at(-1)).toBe("failed");
    expect(sink.messages.filter((m) => m.parsed.subject === "must be encrypted")).toHaveLength(0);
    expect(await tlsCount("relay", "starttls-not-supported")).toBeGreaterThanOrEqual(2);
  });

  it("delivers an email without requireTls over the same relay", async () => {
    const res = await send({ subject: "plain is fine" });
    const id = res.json.messageId as string;
    const delivered = await waitForStatus(id, "delivered");
    expect(delivered.require_tls).toBe(false);
    expect(sink.messages.some((m) => m.parsed.subject === "plain is fine")).toBe(true);
  });
});

// Python's smtplib, a real client: EHLO and MAIL FROM with REQUIRETLS before STARTTLS, then after it.
const SUBMIT = `
import json, smtplib, ssl, sys
port, ca, key, subject, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
out = {}
message = f"From: app@acme.test\\r\\nTo: ann@example.test\\r\\nSubject: {subject}\\r\\n\\r\\nHello\\r\\n"
with smtplib.SMTP("localhost", int(port)) as client:
    client.ehlo()
    out["plainOffers"] = client.has_extn("requiretls")
    code, text = client.docmd("MAIL FROM:<app@acme.test> REQUIRETLS")
    out["plainMail"] = f"{code} {text.decode()}"
    client.starttls(context=ssl.create_default_context(cafile=ca))
    client.ehlo()
    out["tlsOffers"] = client.has_extn("requiretls")
    client.login("app", key)
    out["mail"] = " ".join(map(str, client.mail("app@acme.test", extra)))
    client.rcpt("ann@example.test")
    code, text = client.data(message)
    out["data"] = f"{code} {text.decode()}"
print(json.dumps(out))
`;

const hasPython = await promisify(execFile)("python3", ["--version"]).then(
  () => true,
  () => false,
);

async function submit(subject: string, mailOptions: string[]) {
  const args = ["-c", SUBMIT, String(smtp.port), smtp.caFile, key, subject, ...mailOptions];
  const { stdout } = await promisify(execFile)("python3", args);
  return JSON.parse(stdout) as Record<string, string | boolean>;
}

describe.skipIf(!hasPython)("REQUIRETLS (RFC 8689) at the SMTP submission door", () => {
  it("is offered and taken only over TLS, and makes the email leave only over verified TLS", async () => {
    const out = await submit("submitted with REQUIRETLS", ["REQUIRETLS"]);
    // Without TLS: not offered, and no MAIL FROM is taken (AUTH, which needs TLS, comes first).
    expect(out.plainOffers).toBe(false);
    expect(out.plainMail).toMatch(/^530 5\.7\.0 /);
    expect(out.tlsOffers).toBe(true);
    expect(out.mail).toMatch(/^250 /);
    const id = /Queued as ([0-9a-f-]{36})$/.exec(String(out.data))?.[1] as string;
    expect(id).toBeDefined();
    const failed = await waitForStatus(id, "failed");
    expect(failed.require_tls).toBe(true);
    expect(failed.last_smtp_response).toMatch(/^ann@example\.test: REQUIRETLS: 127\.0\.0\.1: no TLS/);
    expect(sink.messages.filter((m) => m.parsed.subject === "submitted with REQUIRETLS")).toHaveLength(0);
  });

  it("without the parameter, the same submission is delivered over the plain relay", async () => {
    const out = await submit("submitted without REQUIRETLS", []);
    const id = /Queued as ([0-9a-f-]{36})$/.exec(String(out.data))?.[1] as string;
    const delivered = await waitForStatus(id, "delivered");
    expect(delivered.require_tls).toBe(false);
    expect(sink.messages.some((m) => m.parsed.subject === "submitted without REQUIRETLS")).toBe(true);
  });
});
