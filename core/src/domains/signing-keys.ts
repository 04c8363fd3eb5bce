import { createPrivateKey } from "node:crypto";
import type { Queryable } from "../db/pool.ts";
import { decryptSecret } from "./crypto.ts";
import type { SigningKey } from "./dkim.ts";
import { keyAssociatedData } from "./store.ts";
import type { DkimAlgorithm, DomainRecord } from "./types.ts";

/**
 * Decrypts the keys a domain signs with now, RSA first: the active ones (a pending key is not served yet, a
 * retiring one only stays published for mail already signed; rotation/decide.ts). Throws a `DecryptionError`
 * (no key material in its message) if a ciphertext was altered, moved to another row, or the KEK is not the
 * one used.
 */
export async function loadSigningKeys(
  db: Queryable,
  kek: Buffer,
  domain: DomainRecord,
): Promise<SigningKey[]> {
  const { rows } = await db.query<{
    id: string;
    selector: string;
    algorithm: DkimAlgorithm;
    private_key_encrypted: Buffer;
  }>(
    `select id, selector, algorithm, private_key_encrypted from dkim_keys where domain_id = $1
       and state = 'active'
     order by algorithm = 'rsa' desc, created_at, selector`,
    [domain.id],
  );
  return rows.map((row) => {
    const der = decryptSecret(kek, row.private_key_encrypted, keyAssociatedData(row.id));
    try {
      return {
        domainName: domain.name,
        selector: row.selector,
        algorithm: row.algorithm,
        privateKey: createPrivateKey({ key: der, format: "der", type: "pkcs8" }),
      };
    } finally {
      der.fill(0);
    }
  });
}
