import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/config.ts";
import { generateKek, KEK_LENGTH } from "./crypto.ts";

/**
 * The key-encryption key for DKIM private keys: from MAILROOM_KEY_ENCRYPTION_KEY, else the file named by
 * MAILROOM_KEY_ENCRYPTION_KEY_FILE (base64, as a Kubernetes Secret mounts it). Undefined when neither is set.
 */
export async function loadKek(config: Config): Promise<Buffer | undefined> {
  if (config.keyEncryption.key) return config.keyEncryption.key;
  if (!config.keyEncryption.file) return undefined;
  const key = Buffer.from((await readFile(config.keyEncryption.file, "utf8")).trim(), "base64");
  if (key.length !== KEK_LENGTH) {
    throw new Error(
      `MAILROOM_KEY_ENCRYPTION_KEY_FILE: ${config.keyEncryption.file} must hold 32 bytes, base64`,
    );
  }
  return key;
}

/** For local runs: the KEK at `<dataDir>/key-encryption-key`, created (mode 0600) on first use. */
export async function ensureLocalKek(dataDir: string): Promise<{ file: string; created: boolean }> {
  const file = path.join(dataDir, "key-encryption-key");
  if (existsSync(file)) return { file, created: false };
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${generateKek().toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  return { file, created: true };
}
