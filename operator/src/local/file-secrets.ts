/**
 * Local mode's SecretStore: one JSON file per Secret under `<dataDir>/secrets/<namespace>/<name>.json`,
 * readable by the owner only, since a generated API key is written there in clear.
 */
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { SecretStore } from "../controllers/context.ts";

/** Where local mode writes a Secret. */
export function localSecretPath(dataDir: string, namespace: string, name: string): string {
  return path.join(dataDir, "secrets", namespace, `${name}.json`);
}

export function createFileSecretStore(dataDir: string): SecretStore {
  return {
    async read(namespace, name) {
      try {
        const data = JSON.parse(await readFile(localSecretPath(dataDir, namespace, name), "utf8"));
        // Every file here was written by the operator; there is no other writer to protect, and no owner
        // is recorded (local mode applies files one by one, as their author wrote them).
        return { data: data as Record<string, string>, managedByOperator: true, ownerUids: [] };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async write(namespace, name, data) {
      const file = localSecretPath(dataDir, namespace, name);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
      await chmod(file, 0o600);
    },
    async remove(namespace, name) {
      await rm(localSecretPath(dataDir, namespace, name), { force: true });
    },
    // No garbage collection locally, so no ownerReferences.
    async setOwnerReference() {},
  };
}
