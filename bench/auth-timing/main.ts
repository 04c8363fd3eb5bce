/**
 * Does a key id's existence show in the API's timing? (issue 26, item 6). Against the real HTTPS API on
 * Postgres, 2,000 requests, interleaved one by one, with (a) a well-formed key whose id does not exist and
 * (b) a real key id with a wrong secret, over one kept-alive connection; prints the median and p90 of each
 * and their difference. Both must answer 401 invalid_api_key. Loopback only.
 *
 * Run: `npx node bench/auth-timing/main.ts` (DATABASE_URL: a fresh database on that server, else a throwaway
 * embedded Postgres). AUTH_TIMING_REQUESTS (2000).
 */
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { Agent, request } from "node:https";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { createPool, migrate } from "@mailroom/core/db";
import { createKey } from "@mailroom/core/keys";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { startApiServer } from "../../api/src/index.ts";
import { runBenchmark } from "../shared/lifecycle.ts";
import { openBenchDatabase } from "../shared/support.ts";

const REQUESTS = Number(process.env.AUTH_TIMING_REQUESTS ?? 2000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] ?? Number.NaN;

await runBenchmark(30 * 60_000, async (onCleanup) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-auth-timing-"));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // The embedded Postgres runs as its own user when this runs as root: it must reach its data directory.
  await chmod(dir, 0o755);
  const database = await openBenchDatabase(dir);
  onCleanup(() => database.close());
  const pool = createPool({ url: database.url, max: 4, applicationName: "bench-auth-timing" });
  onCleanup(() => pool.end());
  await migrate({ url: database.url });
  const real = await createKey(pool, { account: "bench", scopes: ["send"], expires: "never" });
  const tls = await ensureLocalCertificates(dir, ["localhost"]);
  const config = loadConfig({
    DATABASE_URL: database.url,
    MAILROOM_API_PORT: "0",
    MAILROOM_API_HOST: "127.0.0.1",
    MAILROOM_LOG_LEVEL: "silent",
  });
  const server = await startApiServer(
    {
      config,
      pool,
      logger: createLogger({ level: "silent", name: "bench" }),
      metrics: createApiMetrics(),
      kek: Buffer.alloc(32, 1),
    },
    { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
  );
  const ca = await readFile(tls.caCertFile);
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const call = (key: string) =>
    new Promise<{ status: number; body: string; ms: number }>((resolve, reject) => {
      const started = performance.now();
      const req = request(
        `https://localhost:${server.port}/v1/emails?limit=1`,
        { agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString(),
              ms: performance.now() - started,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  const [prefix, , secret] = real.fullKey.split("_");
  const unknownId = `${prefix}_ZZZZZZZZZZZZ_${secret}`;
  const wrongSecret = `${prefix}_${real.key.keyId}_${"A".repeat(secret?.length ?? 32)}`;
  // Warm the connection, the statement plans and the JIT before measuring.
  for (let i = 0; i < 200; i++) await call(i % 2 ? unknownId : wrongSecret);
  const times = { unknownId: [] as number[], wrongSecret: [] as number[] };
  for (let i = 0; i < REQUESTS; i++) {
    const which = i % 2 === 0 ? "unknownId" : "wrongSecret";
    const answer = await call(which === "unknownId" ? unknownId : wrongSecret);
    if (answer.status !== 401 || !answer.body.includes('"invalid_api_key"')) {
      throw new Error(`expected 401 invalid_api_key, got ${answer.status} ${answer.body}`);
    }
    times[which].push(answer.ms * 1000);
  }
  agent.destroy();
  await server.close();
  const row = (name: string, xs: number[]) =>
    `| ${name} | ${xs.length} | ${median(xs).toFixed(0)} | ${p90(xs).toFixed(0)} |`;
  process.stdout.write(
    [
      "| request | n | median µs | p90 µs |",
      "|---|---|---|---|",
      row("unknown key id", times.unknownId),
      row("known id, wrong secret", times.wrongSecret),
      "",
      `median difference (wrong secret − unknown id): ${(median(times.wrongSecret) - median(times.unknownId)).toFixed(1)} µs`,
      "",
    ].join("\n"),
  );
  return 0;
});
