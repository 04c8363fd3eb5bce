import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { authenticateKey, authenticateKeyWithAccount } from "@mailroom/core/keys";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/ports.ts";
import { until } from "../support/wait.ts";

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, "../../cli/bin/mailroom.js");

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function mailroom(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: db.url, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Each test starts the CLI several times (a Node process loading the whole program each time): on a busy
// machine that alone can pass the suite's 30 s default.
describe("mailroom CLI", { timeout: 120_000 }, () => {
  it("prints its version, the one the image is tagged with", async () => {
    const { version } = JSON.parse(
      await readFile(path.resolve(import.meta.dirname, "../../cli/package.json"), "utf8"),
    );
    const out = await mailroom(["--version"]);
    expect(out).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("creates a key, printing the full key alone on stdout", async () => {
    const out = await mailroom([
      "keys",
      "create",
      "--scopes",
      "send,domains",
      "--expires",
      "30d",
      "--account",
      "team-a",
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^mrk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}\n$/);
    expect(out.stderr).toMatch(
      /created key [0-9A-Za-z]{12} \(account team-a, scopes send,domains, expires 20/,
    );
    const key = await authenticateKey(db.pool, `Bearer ${out.stdout.trim()}`);
    expect(key.account).toBe("team-a");
    expect(key.scopes).toEqual(["send", "domains"]);
    expect(key.expiresAt).not.toBeNull();
  });

  it("creates a sandbox key, and makes an account a sandbox and live again (issue 30)", async () => {
    const out = await mailroom(["keys", "create", "--scopes", "send", "--account", "ci", "--sandbox"]);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/created sandbox key [0-9A-Za-z]{12} \(account ci/);
    expect((await authenticateKeyWithAccount(db.pool, `Bearer ${out.stdout.trim()}`)).key.mode).toBe(
      "sandbox",
    );
    const live = (
      await mailroom(["keys", "create", "--scopes", "send", "--account", "staging"])
    ).stdout.trim();
    const account = async () => (await authenticateKeyWithAccount(db.pool, `Bearer ${live}`)).account.sandbox;
    expect(await account()).toBe(false);
    expect((await mailroom(["accounts", "sandbox", "staging"])).code).toBe(0);
    expect(await account()).toBe(true);
    expect((await mailroom(["accounts", "sandbox", "staging", "--off"])).code).toBe(0);
    expect(await account()).toBe(false);
    const bad = await mailroom(["accounts", "sandbox", "Not_A_Namespace"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/<account>: lowercase letters/);
  });

  it("lists keys without secrets and revokes by key id", async () => {
    const created = await mailroom(["keys", "create", "--scopes", "send", "--name", "billing"]);
    const fullKey = created.stdout.trim();
    const keyId = fullKey.split("_")[1] ?? "";
    const listed = await mailroom(["keys", "list", "--json"]);
    const rows = JSON.parse(listed.stdout) as Array<{ keyId: string; state: string; name: string }>;
    expect(rows.find((r) => r.keyId === keyId)).toMatchObject({ state: "active", name: "billing" });
    expect(listed.stdout).not.toContain(fullKey.split("_")[2]);
    const table = await mailroom(["keys", "list"]);
    expect(table.stdout).toMatch(new RegExp(`${keyId}\\s+default\\s+send\\s+active`));

    const refused = await mailroom(["keys", "revoke", fullKey]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("give the key id");
    const revoked = await mailroom(["keys", "revoke", keyId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`revoked ${keyId}`);
    await expect(authenticateKey(db.pool, `Bearer ${fullKey}`)).rejects.toMatchObject({
      code: "api_key_revoked",
    });
    // Both changes are in the audit trail as the CLI's, by the OS user who ran it (ADR 0062).
    const audited = await db.pool.query(
      "select actor_kind, actor, action from audit_events where target = $1 order by id",
      [keyId],
    );
    const user = os.userInfo().username;
    expect(audited.rows).toEqual([
      { actor_kind: "cli", actor: user, action: "key.created" },
      { actor_kind: "cli", actor: user, action: "key.revoked" },
    ]);
  });

  it("applies the example resources without a cluster (operator local mode)", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "mailroom-apply-"));
    try {
      const examples = path.resolve(import.meta.dirname, "../../examples");
      const out = await mailroom(["apply", "-f", examples], { MAILROOM_DATA_DIR: dataDir });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/ApiKey\s+default\s+checkout\s+True/);
      expect(out.stdout).toMatch(/SendingDomain\s+default\s+\S+\s+False\s+VerificationPending/);
      const again = await mailroom(["apply", "-f", examples], { MAILROOM_DATA_DIR: dataDir });
      expect(again.stdout).toBe(out.stdout);
      const { rows } = await db.pool.query(
        "select count(*)::int as n from api_keys where managed_by = 'operator'",
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("migrate --wait waits for a database that is not up yet (a Cluster installed with the chart)", async () => {
    // A forwarder to the test database on a port where nothing listens yet: the database "comes up" once
    // the migration has been refused at least once.
    const port = await freePort();
    const url = new URL(db.url);
    const target = Number(url.port);
    url.port = String(port);
    const sockets = new Set<Socket>();
    const forwarder = createServer((client) => {
      const upstream = connect(target, "127.0.0.1");
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    const refusedFast = await mailroom(["migrate"], { DATABASE_URL: url.toString() });
    expect(refusedFast.code).not.toBe(0);
    // The database comes up once the CLI has said it is not: a fixed delay instead could end before the CLI
    // (a Node process loading the whole program) has even tried, on a busy machine.
    const waiting = execFile(
      process.execPath,
      [BIN, "migrate", "--wait", "60"],
      { env: { PATH: process.env.PATH ?? "", DATABASE_URL: url.toString() } },
      () => {},
    );
    let said = "";
    waiting.stderr?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => waiting.on("close", resolve));
    try {
      await until(
        async () => said,
        (text) => text.includes("the database is not up yet"),
        60_000,
      );
      forwarder.listen(port, "127.0.0.1");
      const migrated = { code: await exited, stderr: said };
      expect(migrated.stderr).toContain("the database is not up yet");
      expect(migrated.stderr).toContain("schema already up to date");
      expect(migrated.code).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => forwarder.close(resolve));
    }
  });

  it("explains bad input and bad configuration", async () => {
    const scope = await mailroom(["keys", "create", "--scopes", "send,admin"]);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain("unknown scope admin");
    const expiry = await mailroom(["keys", "create", "--scopes", "send", "--expires", "7d"]);
    expect(expiry.stderr).toContain("--expires: choose one of 30d, 90d, 365d, never");
    const config = await mailroom(["keys", "list"], { MAILROOM_DATABASE_POOL_SIZE: "lots" });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("MAILROOM_DATABASE_POOL_SIZE");
    const help = await mailroom(["keys", "create", "--help"]);
    expect(help.stdout).toContain("--scopes <list>");
  });
});
