import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getAccount } from "@mailroom/core/accounts";
import { generateKek } from "@mailroom/core/domains";
import { findKeyForAuth, listKeys, secretMatches } from "@mailroom/core/keys";
import { getTemplateByName } from "@mailroom/core/templates";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { applyManifests } from "./apply.ts";
import { localSecretPath } from "./file-secrets.ts";

const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));
let db: TestDatabase;
let dataDir: string;
const logs: string[] = [];
const log = {
  info: (o: object, m?: string) => logs.push(JSON.stringify({ m, ...o })),
  warn: (o: object, m?: string) => logs.push(JSON.stringify({ m, ...o })),
  error: (o: object, m?: string) => logs.push(JSON.stringify({ m, ...o })),
};
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "mailroom-apply-"));
});
afterAll(async () => {
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("applyManifests (mailroom apply -f)", () => {
  it("reconciles every example with the controllers' code, and converges on a second apply", async () => {
    const deps = { pool: db.pool, kek: generateKek(), dataDir, log };
    const first = await applyManifests(deps, [EXAMPLES]);
    expect(first.map((r) => `${r.kind}/${r.name} ${r.synced.status}`)).toEqual([
      "AccountPolicy/default True",
      "ApiKey/checkout True",
      "ClusterSendingDomain/notifications True",
      "SendingDomain/mail-example True",
      "Template/welcome True",
      "WebhookEndpoint/billing-events True",
    ]);
    expect(await getAccount(db.pool, "default")).toMatchObject({
      dailySendLimit: 200_000,
      retentionDays: 30,
    });
    const file = localSecretPath(dataDir, "default", "checkout-api-key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { apiKey, keyId } = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
    const stored = await findKeyForAuth(db.pool, keyId ?? "");
    expect(stored && secretMatches(apiKey?.split("_")[2] ?? "", stored.secretSha256)).toBe(true);
    expect(logs.join("\n")).not.toContain("mrk_");

    const second = await applyManifests(deps, [EXAMPLES]);
    expect(second.map((r) => r.status)).toEqual(first.map((r) => r.status));
    expect(await listKeys(db.pool, { account: "default" })).toHaveLength(1);
    expect((await getTemplateByName(db.pool, "default", "welcome"))?.version).toBe(1);
  });
});
