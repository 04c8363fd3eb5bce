import { setAccountSandbox } from "@mailroom/core/accounts";
import { listEvents, purgeExpiredEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { type ApiStack, startApiStack, startWorkerStack } from "../support/stack.ts";
import { type SubmissionStack, startSubmissionStack } from "../support/submission.ts";
import { until } from "../support/wait.ts";

/**
 * Issue 30 item 1: a sandbox key's or sandbox account's mail goes through the whole production path
 * (accept, log, timeline, worker, compose, sign) and is captured into its account's dev inbox by the worker,
 * while the relay every live email goes to, a real SMTP server, stays empty of it.
 */

let db: TestDatabase;
let api: ApiStack;
let sink: SmtpSink;
let worker: Awaited<ReturnType<typeof startWorkerStack>>;
let smtp: SubmissionStack;

beforeAll(async () => {
  db = await createTestDatabase();
  sink = await startSmtpSink();
  api = await startApiStack(db);
  worker = await startWorkerStack(db, sink.url);
  smtp = await startSubmissionStack(db);
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await api?.close();
  await sink?.close();
  await db?.drop();
});

const keyOf = async (account: string, mode: "live" | "sandbox" = "live") =>
  (await createKey(db.pool, { account, scopes: ["send"], expires: "never", mode })).fullKey;

async function send(key: string, to: string, subject: string): Promise<string> {
  const res = await api.request("POST", "/v1/send", {
    key,
    body: { from: "Acme <hello@acme.test>", to, bcc: `audit+${subject}@example.test`, subject, text: "hi" },
  });
  expect(res.status, res.text).toBe(200);
  return String(res.json.messageId);
}

async function finished(id: string): Promise<string> {
  return until(
    async () =>
      (await db.pool.query<{ status: string }>("select status from emails where id = $1", [id])).rows[0]
        ?.status ?? "",
    (status) => ["delivered", "bounced", "failed"].includes(status),
    20_000,
  );
}

type Listed = { id: string; emailId: string; subject: string; recipients: string[] };
const inbox = async (key: string, query = "") =>
  (await api.request("GET", `/v1/dev-inbox/messages${query}`, { key })).json.data as Listed[];

describe("sandbox mail is processed as in production and captured, never sent", () => {
  it("a sandbox key's email is delivered into its account's inbox; the SMTP server sees nothing", async () => {
    const key = await keyOf("shop", "sandbox");
    const id = await send(key, "Zoë <zoe@example.test>", "welcome");
    expect(await finished(id)).toBe("delivered");
    expect((await listEvents(db.pool, id)).map((e) => e.type)).toEqual(["queued", "sending", "delivered"]);
    // The log says it was captured, in the entry and in the list.
    expect((await api.request("GET", `/v1/emails/${id}`, { key })).json).toMatchObject({ sandbox: true });
    const listed = await api.request("GET", "/v1/emails", { key });
    expect((listed.json.data as { id: string; sandbox: boolean }[]).find((e) => e.id === id)?.sandbox).toBe(
      true,
    );
    const [captured] = await inbox(key, "?to=zoe%40example.test&wait=10");
    expect(captured).toMatchObject({ emailId: id, subject: "welcome" });
    // The envelope the relay would have had, Bcc included, and the bytes the worker composed and signed.
    expect(captured?.recipients.sort()).toEqual(["audit+welcome@example.test", "zoe@example.test"]);
    const raw = await api.request("GET", `/v1/dev-inbox/messages/${captured?.id}/raw`, { key });
    expect(raw.text).toContain(`Message-ID: <${id}@`);
    expect(raw.text).not.toMatch(/^Bcc:/im);
    const { rows } = await db.pool.query("select recipient_results from emails where id = $1", [id]);
    expect(rows[0].recipient_results["zoe@example.test"]).toMatchObject({ status: "accepted", code: 250 });
    expect(sink.messages).toEqual([]);
  });

  it("the SMTP door decides the same way: a sandbox key's submission is captured, not relayed", async () => {
    const key = await keyOf("smtp-door", "sandbox");
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: smtp.port,
      requireTLS: true,
      tls: { ca: smtp.ca, servername: "localhost" },
      auth: { user: "app", pass: key },
    });
    const info = await transport.sendMail({
      from: "app@acme.test",
      to: "smtp-user@example.test",
      subject: "over smtp",
      text: "hi",
    });
    transport.close();
    const id = /Queued as ([0-9a-f-]{36})$/.exec(info.response)?.[1] ?? "";
    expect(await finished(id)).toBe("delivered");
    const [captured] = await inbox(key, "?to=smtp-user%40example.test&wait=10");
    expect(captured).toMatchObject({ emailId: id, subject: "over smtp" });
    expect(sink.messages).toEqual([]);
  });

  it("a sandbox account's live key is captured too; another account's live mail still leaves", async () => {
    await setAccountSandbox(db.pool, "staging", true);
    const staging = await keyOf("staging");
    const prod = await keyOf("prod");
    const captured = await send(staging, "a@example.test", "staged");
    const live = await send(prod, "b@example.test", "real");
    expect(await finished(captured)).toBe("delivered");
    expect(await finished(live)).toBe("delivered");
    expect(sink.messages.map((m) => m.parsed.subject)).toEqual(["real"]);
    expect((await inbox(staging)).map((m) => m.subject)).toEqual(["staged"]);
    // Two accounts never see each other's captured mail.
    expect(await inbox(prod)).toEqual([]);
    expect(await inbox(await keyOf("shop"))).toHaveLength(1);
    expect((await inbox(await keyOf("shop"), "?to=a%40example.test")).map((m) => m.subject)).toEqual([]);
  });

  it("the decision is the one made at accept: changing the account later neither releases nor holds mail", async () => {
    await setAccountSandbox(db.pool, "flip", true);
    const key = await keyOf("flip");
    // No worker meanwhile, so both wait in the queue while the account changes under them. (A schedule a
    // moment ahead could pass before the second send is even answered on a busy machine, and a time in the
    // past is refused.)
    const queue = async (subject: string) => {
      const res = await api.request("POST", "/v1/send", {
        key,
        body: { from: "hello@acme.test", to: "c@example.test", subject, text: "x" },
      });
      expect(res.status, res.text).toBe(200);
      return String(res.json.messageId);
    };
    await worker.stop();
    const [wasSandbox, wasLive] = await (async () => {
      try {
        const sandboxed = await queue("accepted-in-sandbox");
        await setAccountSandbox(db.pool, "flip", false);
        const live = await queue("accepted-live");
        await setAccountSandbox(db.pool, "flip", true);
        return [sandboxed, live];
      } finally {
        worker = await startWorkerStack(db, sink.url);
      }
    })();
    expect(await finished(wasSandbox)).toBe("delivered");
    expect(await finished(wasLive)).toBe("delivered");
    expect(sink.messages.map((m) => m.parsed.subject)).toContain("accepted-live");
    expect(sink.messages.map((m) => m.parsed.subject)).not.toContain("accepted-in-sandbox");
    expect((await inbox(key)).map((m) => m.subject)).toEqual(["accepted-in-sandbox"]);
  });

  it("captured mail lives as long as its email: the log's retention removes both", async () => {
    const key = await keyOf("shop");
    const before = (await inbox(key)).length;
    expect(before).toBeGreaterThan(0);
    // A day from now with a retention of one day: every email finished so far has expired.
    const purged = await purgeExpiredEmails(db.pool, 1, { now: new Date(Date.now() + 2 * 86_400_000) });
    // By rows, or with their whole week when it ended before the cutoff (ADR 0055): which one depends on the day.
    const weeks = purged.partitions.filter((p) => p.startsWith("emails_"));
    expect(purged.emails + weeks.length).toBeGreaterThan(0);
    expect(await inbox(key)).toEqual([]);
  });
});
