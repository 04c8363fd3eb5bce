/** A real OCI registry (Debian's docker-registry, the CNCF distribution) on a loopback port, storage in a temp dir. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "../support/ports.ts";

export interface Registry {
  /** host:port, as image references and `oci://` take it. */
  host: string;
  stop(): Promise<void>;
}

export async function startRegistry(): Promise<Registry> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-registry-"));
  const port = await freePort();
  const config = path.join(dir, "config.yml");
  await writeFile(
    config,
    [
      "version: 0.1",
      "log: {level: warn}",
      `storage: {filesystem: {rootdirectory: ${dir}/data}, delete: {enabled: true}}`,
      `http: {addr: "127.0.0.1:${port}"}`,
      "",
    ].join("\n"),
  );
  let output = "";
  const child: ChildProcess = spawn("docker-registry", ["serve", config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const host = `127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited ${child.exitCode}:\n${output}`);
    const ok = await fetch(`http://${host}/v2/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (attempt > 300) throw new Error(`docker-registry did not answer on ${host}:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    host,
    async stop() {
      child.kill("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
  };
}
