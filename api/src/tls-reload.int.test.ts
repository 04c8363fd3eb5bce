import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { connect } from "node:tls";
import { loadConfig } from "@mailroom/core/config";
import { createApiMetrics } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/support/db.ts";
import { captureLogs, TEST_KEK } from "../../test/support/stack.ts";
import { readTlsFiles, startApiServer } from "./server.ts";

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-tls-reload-"));
});
afterAll(async () => {
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

/** The SHA-256 fingerprint of the certificate a new TLS connection to `port` is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: "127.0.0.1", port, servername: "localhost", rejectUnauthorized: false },
      () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.end();
      },
    );
    socket.once("error", reject);
  });
}

async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("TLS certificate reload", () => {
  it("serves a renewed certificate without a restart, and keeps the old one when the new pair is broken", async () => {
    const first = await ensureLocalCertificates(path.join(dir, "first"), ["localhost"]);
    const second = await ensureLocalCertificates(path.join(dir, "second"), ["localhost"]);
    const live = { certFile: path.join(dir, "tls.crt"), keyFile: path.join(dir, "tls.key") };
    await copyFile(first.certFile, live.certFile);
    await copyFile(first.keyFile, live.keyFile);
    const logs = captureLogs();
    const server = await startApiServer(
      {
        config: loadConfig({
          MAILROOM_API_PORT: "0",
          DATABASE_URL: db.url,
          MAILROOM_TLS_RELOAD_SECONDS: "0.1",
        }),
        pool: db.pool,
        logger: logs.logger,
        metrics: createApiMetrics(),
        kek: TEST_KEK,
      },
      await readTlsFiles(live),
    );
    try {
      const before = await servedFingerprint(server.port);
      // A renewal: both files replaced (as cert-manager does through a Secret).
      await writeFile(live.certFile, await readFile(second.certFile));
      await writeFile(live.keyFile, await readFile(second.keyFile));
      await eventually(async () => (await servedFingerprint(server.port)) !== before);
      const renewed = await servedFingerprint(server.port);
      expect(logs.lines.some((l) => l.includes("serving the renewed TLS certificate"))).toBe(true);

      // A half-written renewal (a key that does not match): the API keeps serving the previous pair.
      await writeFile(live.keyFile, await readFile(first.keyFile));
      await eventually(async () => logs.lines.some((l) => l.includes("still serving the previous pair")));
      expect(await servedFingerprint(server.port)).toBe(renewed);
    } finally {
      await server.close();
    }
  });
});
