import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

// Randomness for ids, drawn from the CSPRNG a few kilobytes at a time: `crypto.getRandomValues` per id (what
// uuid does by default) showed up at ~3 % of the API's and the worker's CPU.
const POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;
const state = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

function random16(): Uint8Array {
  if (offset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += 16;
  return pool.subarray(offset - 16, offset);
}

/**
 * A new UUIDv7 (time-ordered, RFC 9562), monotonic within this process: ids made in the same millisecond
 * count up from a random start, as uuid's own v7 does.
 */
export function newId(): string {
  const random = random16();
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    // 31 random bits leave room to count up within the millisecond (uuid's v7Sequence does the same).
    state.seq =
      ((random[6] ?? 0) << 23) | ((random[7] ?? 0) << 16) | ((random[8] ?? 0) << 8) | (random[9] ?? 0);
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs += 1;
  }
  return v7({ random, msecs: state.msecs, seq: state.seq });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a caller-given id can be a row id (a UUID). Anything else names no row, and must not reach a
 * `uuid` cast, where Postgres would fail the statement (a 500) instead of finding nothing.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
