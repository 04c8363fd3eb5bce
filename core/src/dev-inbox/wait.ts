import { setTimeout as sleep } from "node:timers/promises";
import type { Queryable } from "../db/pool.ts";
import type { CapturedFilter } from "../sandbox/store.ts";
import { type InboxSummary, listInbox } from "./inbox.ts";

/** The longest a wait-for-message call may hold a request (seconds). */
const MAX_WAIT_SECONDS = 30;
// How often a waiting call looks again: a match is answered at most this long after its capture committed.
const POLL_MS = 200;

/**
 * The wait-for-message call (`GET /v1/dev-inbox/messages?wait=…`): the account's matching messages as soon
 * as there is at least one, else an empty list once `waitSeconds` have passed. It polls (ADR 0047): one
 * indexed read per 200 ms holds no connection between reads, where LISTEN would pin one pool connection per
 * waiting request. Stops early when `signal` aborts (the client went away).
 */
export async function waitForInbox(
  db: Queryable,
  account: string,
  options: { filter: CapturedFilter; limit: number; waitSeconds: number; signal?: AbortSignal | undefined },
): Promise<InboxSummary[]> {
  const deadline = Date.now() + Math.min(options.waitSeconds, MAX_WAIT_SECONDS) * 1000;
  for (;;) {
    const found = await listInbox(db, account, options.limit, options.filter);
    const left = deadline - Date.now();
    if (found.length > 0 || left <= 0 || options.signal?.aborted) return found;
    await sleep(Math.min(POLL_MS, left));
  }
}
