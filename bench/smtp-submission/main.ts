/**
 * SMTP submission under load (issue 16 item 6): messages accepted per second by `mailroom smtp` (20
 * connections, implicit TLS, MAIL/RCPT/DATA and the message pipelined in one write per message, the delivery
 * bench's email), beside POST /v1/send on the real API over the same number of keep-alive connections, and
 * beside Postfix's smtpd accepting the same messages into its own queue when it can run here (root, Debian's
 * postfix and opendkim; otherwise it says why and skips it). Every 250 must have left exactly one row.
 * Servers and load generator share this process; loopback only; each phase bounded by BENCH_SECONDS.
 *
 * Run: `npx node bench/smtp-submission/main.ts`. BENCH_SECONDS (10), BENCH_CONNECTIONS (20); DATABASE_URL: a
 * fresh database on that server instead of a throwaway embedded Postgres.
 */
import { createPrivateKey } from "node:crypto";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { Agent, request } from "node:https";
import { connect as connectTcp } from "node:net";
import os from "node:os";
import path from "node:path";
import { connect as connectTls } from "node:tls";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate, type Pool } from "@mailroom/core/db";
import { generateDkimKey } from "@mailroom/core/domains";
import { createKey } from "@mailroom/core/keys";
import { createApiMetrics, createLogger, createSmtpMetrics } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { SMTPServer } from "smtp-server";
import { startApiServer } from "../../api/src/index.ts";
import { startSubmissionServers } from "../../smtp/src/index.ts";
import { DOMAIN, FROM, FROM_ADDRESS, recipient, SUBJECT, TEXT } from "../delivery/protocol.ts";
import { commandLine, int, writeBenchmarkSection } from "../shared/benchmarks-file.ts";
import { type OnCleanup, runBenchmark } from "../shared/lifecycle.ts";
import { postfixPeerUnavailable, startPostfixPeer } from "../shared/postfix-peer.ts";
import { openBenchDatabase } from "../shared/support.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const say = (line: string) => process.stdout.write(`› ${line}\n`);

const message = (i: number) =>
  [`From: ${FROM}`, `To: ${recipient(i)}`, `Subject: ${SUBJECT}`, "MIME-Version: 1.0", "", TEXT, ""].join(
    "\r\n",
  );

/**
 * One connection, greeted and authenticated; the returned loop sends each message pipelined in one write and
 * reads its four replies, until the deadline.
 */
async function smtpClient(
  open: () => ReturnType<typeof connectTcp>,
  greeting: string[],
  offset: number,
): Promise<(deadline: number) => Promise<number>> {
  const socket = open();
  let buffer = "";
  const waiting: Array<(line: string) => void> = [];
  const lines: string[] = [];
  socket.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("latin1");
    for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (line[3] === "-") continue;
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  const reply = () =>
    new Promise<string>((resolve) => {
      const line = lines.shift();
      if (line !== undefined) resolve(line);
      else waiting.push(resolve);
    });
  await reply();
  for (const command of greeting) {
    socket.write(`${command}\r\n`);
    const answer = await reply();
    if (!/^[23]/.test(answer)) throw new Error(`${command.split(" ")[0]}: ${answer}`);
  }
  return async (deadline) => {
    let accepted = 0;
    for (let i = offset; Date.now() < deadline; i += CONNECTIONS) {
      socket.write(`MAIL FROM:<${FROM_ADDRESS}>\r\nRCPT TO:<${recipient(i)}>\r\nDATA\r\n${message(i)}.\r\n`);
      const replies = [await reply(), await reply(), await reply(), await reply()];
      if (replies[3]?.startsWith("250")) accepted++;
      else throw new Error(`refused: ${replies.join(" | ")}`);
    }
    socket.end("QUIT\r\n");
    return accepted;
  };
}

/** Opens the connections (not timed), then runs them to the deadline; how many were accepted, and per second. */
async function rate(
  prepare: (offset: number) => Promise<(deadline: number) => Promise<number>>,
): Promise<{ accepted: number; perSecond: number }> {
  const loops = await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => prepare(n)));
  const started = Date.now();
  const counts = await Promise.all(loops.map((loop) => loop(started + SECONDS * 1000)));
  const accepted = counts.reduce((a, b) => a + b, 0);
  return { accepted, perSecond: accepted / ((Date.now() - started) / 1000) };
}

/** Every 250 (or 200) must have left exactly one row of that door, or the figure means nothing. */
async function checkRows(pool: Pool, source: "api" | "smtp", accepted: number): Promise<void> {
  const { rows } = await pool.query("select count(*)::int as n from emails where source = $1", [source]);
  if (rows[0].n !== accepted) throw new Error(`${source}: ${accepted} accepted but ${rows[0].n} rows`);
}

/** A stop that may be asked for twice (its `finally` and a signal's cleanup) and runs once. */
const once = (stop: () => Promise<void>) => {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= stop();
    return stopping;
  };
};

async function main(onCleanup: OnCleanup): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-smtp-"));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // Run as root, the embedded Postgres drops to its own user, which must be able to enter the directory.
  await chmod(dir, 0o755);
  const db = await openBenchDatabase(dir);
  onCleanup(() => db.close());
  say(`database ${db.describe}`);
  await migrate({ url: db.url, log: () => {} });
  const pool = createPool({ url: db.url, max: 10, applicationName: "bench-smtp" });
  const { fullKey } = await createKey(pool, { account: "bench", scopes: ["send"], expires: "never" });
  const tls = await ensureLocalCertificates(path.join(dir, "tls"), ["localhost", "127.0.0.1"]);
  const material = { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) };
  const ca = await readFile(tls.caCertFile);
  const config = loadConfig({
    DATABASE_URL: db.url,
    MAILROOM_API_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    MAILROOM_RATE_LIMIT_PER_KEY: "0",
    MAILROOM_RATE_LIMIT_PER_ACCOUNT: "0",
  });
  const logger = createLogger({ level: "silent", name: "bench" });
  const smtp = await startSubmissionServers({
    config,
    pool,
    logger,
    metrics: createSmtpMetrics(),
    tls: material,
  });
  const api = await startApiServer(
    { config, pool, logger, metrics: createApiMetrics(), kek: Buffer.alloc(32, 1) },
    material,
  );
  const results: Array<[string, number]> = [];
  try {
    const auth = `AUTH PLAIN ${Buffer.from(`\0bench\0${fullKey}`).toString("base64")}`;
    say(`SMTP submission, ${CONNECTIONS} connections, ${SECONDS} s …`);
    const smtpRate = await rate((n) =>
      smtpClient(
        () => connectTls({ host: "127.0.0.1", port: smtp.ports.submissionTls, ca, servername: "localhost" }),
        ["EHLO bench.test", auth],
        n,
      ),
    );
    await checkRows(pool, "smtp", smtpRate.accepted);
    results.push(["Mailroom SMTP submission (465, TLS, AUTH, 250 after commit)", smtpRate.perSecond]);
    say(`SMTP: ${int(smtpRate.perSecond)} messages/s, one row per 250`);

    say(`POST /v1/send, ${CONNECTIONS} connections, ${SECONDS} s …`);
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca, servername: "localhost" });
    const body = (i: number) =>
      JSON.stringify({ from: FROM, to: recipient(i), subject: SUBJECT, text: TEXT });
    const httpRate = await rate(async (n) => async (deadline) => {
      let accepted = 0;
      for (let i = n; Date.now() < deadline; i += CONNECTIONS) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(
            `https://127.0.0.1:${api.port}/v1/send`,
            {
              method: "POST",
              agent,
              headers: { authorization: `Bearer ${fullKey}`, "content-type": "application/json" },
            },
            (res) => res.resume().on("end", () => resolve(res.statusCode ?? 0)),
          );
          req.on("error", reject);
          req.end(body(i));
        });
        if (status === 200) accepted++;
      }
      return accepted;
    });
    agent.destroy();
    await checkRows(pool, "api", httpRate.accepted);
    results.push(["Mailroom POST /v1/send (HTTPS keep-alive)", httpRate.perSecond]);
    say(`HTTP: ${int(httpRate.perSecond)} emails/s, one row per 200`);

    const unavailable = postfixPeerUnavailable();
    if (unavailable) {
      say(`Postfix skipped: ${unavailable}`);
    } else {
      // Postfix relays what it queued to a sink that accepts everything, as it would to a relay.
      const sink = new SMTPServer({ authOptional: true, disabledCommands: ["STARTTLS"], logger: false });
      sink.on("error", () => {});
      await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", () => resolve()));
      const sinkPort = (sink.server.address() as { port: number }).port;
      const dkim = await generateDkimKey("rsa");
      const postfixPeer = await startPostfixPeer({
        sinkPort,
        domain: DOMAIN,
        selector: "bench",
        privateKeyPem: createPrivateKey({ key: dkim.privateKeyDer, format: "der", type: "pkcs8" })
          .export({ format: "pem", type: "pkcs8" })
          .toString(),
        say,
      });
      // Postfix's master runs on after this process unless stopped: a signal's cleanup stops it too.
      const postfix = { url: postfixPeer.url, stop: once(() => postfixPeer.stop()) };
      onCleanup(postfix.stop);
      try {
        const port = Number(new URL(postfix.url).port);
        say(`Postfix smtpd, ${CONNECTIONS} connections, ${SECONDS} s …`);
        const postfixRate = await rate((n) =>
          smtpClient(() => connectTcp({ host: "127.0.0.1", port }), ["EHLO bench.test"], n),
        );
        results.push([
          "Postfix smtpd into its queue (plain, no AUTH, OpenDKIM milter)",
          postfixRate.perSecond,
        ]);
        say(`Postfix: ${int(postfixRate.perSecond)} messages/s`);
      } finally {
        await postfix.stop();
        await new Promise<void>((resolve) => sink.close(() => resolve()));
      }
    }
  } finally {
    await smtp.close();
    await api.close();
    await pool.end();
  }
  await writeBenchmarkSection(
    "## SMTP submission",
    [
      `${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}; ` +
        `${commandLine("bench/smtp-submission/main.ts", ["BENCH_SECONDS", "BENCH_CONNECTIONS", "DATABASE_URL"])}. ` +
        `${CONNECTIONS} connections, ${SECONDS} s each, servers and load generator in one process.`,
      "",
      "| door | accepted per second |",
      "| --- | ---: |",
      ...results.map(([name, value]) => `| ${name} | ${int(value)} |`),
    ].join("\n"),
  );
  return 0;
}

await runBenchmark(60 * 60_000, main);
