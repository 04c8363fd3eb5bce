import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Envelope format, version 1 (all binary, stored as bytea):
 *   [0x01][KEK fingerprint: 4 bytes][IV: 12 bytes][GCM tag: 16 bytes][ciphertext]
 * The fingerprint (first bytes of SHA-256 of the KEK) lets a wrong KEK be told apart from tampering, which
 * matters to an operator who rotated or lost the key. The associated data binds a ciphertext to its owner
 * (e.g. a DKIM key id), so a ciphertext copied onto another row does not decrypt.
 */
const VERSION_1 = 0x01;
const FINGERPRINT_LENGTH = 4;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + FINGERPRINT_LENGTH + IV_LENGTH + TAG_LENGTH;
export const KEK_LENGTH = 32;

/** Thrown when an envelope cannot be opened. Its message never contains key material. */
export class DecryptionError extends Error {
  override name = "DecryptionError";
}

function fingerprint(kek: Buffer): Buffer {
  return createHash("sha256").update(kek).digest().subarray(0, FINGERPRINT_LENGTH);
}

function assertKek(kek: Buffer): void {
  if (kek.length !== KEK_LENGTH) {
    throw new RangeError(`The key-encryption key must be ${KEK_LENGTH} bytes, got ${kek.length}.`);
  }
}

/** Makes a new random 32-byte key-encryption key. */
export function generateKek(): Buffer {
  return randomBytes(KEK_LENGTH);
}

/** Encrypts `plaintext` under the KEK with AES-256-GCM, bound to `associatedData`. */
export function encryptSecret(kek: Buffer, plaintext: Buffer, associatedData: string): Buffer {
  assertKek(kek);
  const iv = randomBytes(IV_LENGTH);
  const cipher = createCipheriv("aes-256-gcm", kek, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION_1), fingerprint(kek), iv, cipher.getAuthTag(), ciphertext]);
}

/**
 * Opens an envelope made by `encryptSecret` with the same KEK and associated data. Throws a
 * `DecryptionError` naming the cause (unknown version, other KEK, tampered or misplaced ciphertext).
 */
export function decryptSecret(kek: Buffer, envelope: Buffer, associatedData: string): Buffer {
  assertKek(kek);
  if (envelope.length < HEADER_LENGTH || envelope[0] !== VERSION_1) {
    throw new DecryptionError("Unknown encrypted-secret format version.");
  }
  if (!envelope.subarray(1, 1 + FINGERPRINT_LENGTH).equals(fingerprint(kek))) {
    throw new DecryptionError("The secret was encrypted under a different key-encryption key.");
  }
  const ivStart = 1 + FINGERPRINT_LENGTH;
  const iv = envelope.subarray(ivStart, ivStart + IV_LENGTH);
  const tag = envelope.subarray(ivStart + IV_LENGTH, HEADER_LENGTH);
  const decipher = createDecipheriv("aes-256-gcm", kek, iv, { authTagLength: TAG_LENGTH });
  decipher.setAAD(Buffer.from(associatedData, "utf8"));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(envelope.subarray(HEADER_LENGTH)), decipher.final()]);
  } catch (error) {
    throw new DecryptionError("The encrypted secret failed authentication: it was altered or moved.", {
      cause: error,
    });
  }
}
