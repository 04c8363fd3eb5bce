import type { Pool } from "../../db/pool.ts";
import { dkimRecordName, dkimTxtValue } from "../dkim.ts";
import type { DnsRecordSpec } from "../types.ts";
import { checkRecord, type LookupTxt } from "../verify.ts";
import { decideRotation, type RotationDecision, type RotationPolicy } from "./decide.ts";
import {
  type AppliedStep,
  applyRotationStep,
  claimDomainsDueForRotation,
  loadRotationState,
  type RotationState,
  recordPendingLookups,
  setRotationCheckAt,
} from "./store.ts";

export interface RotationDeps {
  db: Pool;
  kek: Buffer;
  /** The resolver verification uses: a pending key signs only once this serves it. */
  lookup: LookupTxt;
  policy: RotationPolicy;
}

/** What one run did for one domain: the steps applied, and where it stopped. */
export interface RotationOutcome {
  domainId: string;
  account: string;
  name: string;
  applied: AppliedStep[];
  /** The decision it stopped at (a `wait`), with when the job looks again. */
  last: RotationDecision;
}

// generate → (served) activate, plus a withdrawal, or a compromise's replace: never more in one run.
const MAX_STEPS_PER_RUN = 4;

/** The key set's identity: a step decided on one key set is written only if it has not changed since. */
const signature = (s: RotationState) =>
  `${s.keys.map((k) => `${k.id}:${k.state}`).join(",")}|${s.request?.at.toISOString() ?? ""}`;

async function lookUpPending(deps: RotationDeps, state: RotationState, now: Date): Promise<void> {
  const pending = state.keys.filter((k) => k.state === "pending");
  if (pending.length === 0) return;
  const lookups = await Promise.all(
    pending.map(async (key) => {
      const spec: DnsRecordSpec = {
        purpose: "dkim",
        type: "TXT",
        name: dkimRecordName(key.selector, state.name),
        value: dkimTxtValue(key.algorithm, key.publicKey),
        required: false,
      };
      return { keyId: key.id, check: await checkRecord(deps.lookup, spec) };
    }),
  );
  await recordPendingLookups(deps.db, state.id, lookups, now);
}

/**
 * Brings one domain's rotation as far as it can go now: looks up its pending keys in DNS, asks the decider,
 * writes each step it decides (one transaction each, with its webhook event), and stores when to look
 * again. Undefined when the domain no longer exists.
 */
export async function rotateDomain(
  deps: RotationDeps,
  domainId: string,
  now: Date = new Date(),
): Promise<RotationOutcome | undefined> {
  const applied: AppliedStep[] = [];
  for (let i = 0; i < MAX_STEPS_PER_RUN; i++) {
    let state = await loadRotationState(deps.db, domainId);
    if (!state) return undefined;
    if (state.keys.some((k) => k.state === "pending")) {
      await lookUpPending(deps, state, now);
      state = await loadRotationState(deps.db, domainId);
      if (!state) return undefined;
    }
    const decision = decideRotation({ ...state, now, policy: deps.policy });
    const { step } = decision;
    if (step.kind === "wait" || i === MAX_STEPS_PER_RUN - 1) {
      await setRotationCheckAt(deps.db, domainId, decision.nextCheckAt);
      return { domainId, account: state.account, name: state.name, applied, last: decision };
    }
    const seen = signature(state);
    const done = await applyRotationStep(
      deps.db,
      deps.kek,
      domainId,
      step,
      (s) => signature(s) === seen,
      now,
    );
    if (done) applied.push(done);
  }
  throw new Error("unreachable: the loop returns on its last turn");
}

/**
 * One pass of the rotation job: claims up to `limit` domains whose rotation check is due and runs each.
 * A domain that fails (a DNS or database error) is left to its lease and retried on a later pass.
 */
export async function rotateDueDomains(
  deps: RotationDeps,
  options: { limit: number; now?: () => Date; leaseMs?: number },
): Promise<RotationOutcome[]> {
  const now = options.now ?? (() => new Date());
  const ids = await claimDomainsDueForRotation(deps.db, {
    now: now(),
    limit: options.limit,
    leaseMs: options.leaseMs ?? 5 * 60_000,
  });
  const outcomes: RotationOutcome[] = [];
  for (const id of ids) {
    const outcome = await rotateDomain(deps, id, now());
    if (outcome) outcomes.push(outcome);
  }
  return outcomes;
}
