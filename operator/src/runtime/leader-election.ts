/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: a candidate takes the Lease when
 * it is free or when its record has not changed for leaseDuration by the candidate's own clock (so clock
 * skew between replicas does not matter), renews it every retryPeriod with a compare-and-swap on
 * resourceVersion, and stops leading as soon as it sees another holder or fails to renew for renewDeadline.
 * Every attempt races that deadline (its requests are aborted when it passes): a Lease call that hangs
 * must not keep a leader reconciling after a standby, seeing no renewal for leaseDuration, took over
 * (client-go's RenewDeadline; renewDeadline < leaseDuration is what makes the two never overlap).
 * A clean stop releases the Lease so the standby takes over without waiting for expiry. A lost Lease is
 * reported (`onLostLease`: the program exits, as controller-runtime's manager does, which is what ends
 * reconciles still in flight), and `healthy()` turns false once a leader, or one still stepping down, has not
 * renewed for a lease duration: the standby may lead by then, and the kubelet should restart this one.
 */
import { type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import type { OperatorLogger } from "../controllers/context.ts";
import { isKubeError, type LeaseClient } from "../kube/index.ts";
import { sleep } from "./backoff.ts";

export interface LeaderElectionOptions {
  leases: LeaseClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): Promise<void>;
  onStoppedLeading(): Promise<void>;
  /** Called (before onStoppedLeading) when leadership is lost rather than given up by stop(). */
  onLostLease?(): void;
  log: OperatorLogger;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** False while this replica leads, or is still stepping down, without a renewal for a lease duration. */
  healthy(): boolean;
  /**
   * Stops campaigning; a leader stops leading and releases the Lease. `release: false` leaves the Lease to
   * expire, as a crashed replica would (the standby then waits out leaseDuration).
   */
  stop(options?: { release?: boolean }): Promise<void>;
}

/** The API server parses MicroTime with exactly six fractional digits; a read-back value may be a plain string. */
function micro(value: Date | string): V1MicroTime {
  return new V1MicroTime(new Date(value).getTime());
}

type Attempt = "acquired" | "held-by-other" | "failed";

/** Resolves when `signal` aborts: the attempt's deadline passed, or the election stopped. */
function aborted(signal: AbortSignal): Promise<"failed"> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("failed");
    else signal.addEventListener("abort", () => resolve("failed"), { once: true });
  });
}

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  const abort = new AbortController();
  let leading = false;
  let steppingDown = false;
  let lastRenew = 0;
  let observedRecord = "";
  let observedAt = 0;

  async function tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const call = { signal };
    const now = Date.now();
    const spec = {
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      renewTime: new V1MicroTime(now),
    };
    let lease: V1Lease;
    try {
      lease = await options.leases.get(options.namespace, options.name, call);
    } catch (error) {
      if (!isKubeError(error, 404)) throw error;
      try {
        await options.leases.create(
          options.namespace,
          {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name: options.name },
            spec: { ...spec, acquireTime: new V1MicroTime(now), leaseTransitions: 0 },
          },
          call,
        );
        return "acquired";
      } catch (createError) {
        if (isKubeError(createError, 409)) return "held-by-other";
        throw createError;
      }
    }
    const current = lease.spec ?? {};
    const record = `${current.holderIdentity}|${String(current.renewTime?.valueOf())}|${current.leaseTransitions}`;
    if (record !== observedRecord) {
      observedRecord = record;
      observedAt = now;
    }
    const mine = current.holderIdentity === options.identity;
    const durationMs = (current.leaseDurationSeconds ?? 0) * 1000;
    if (!mine && current.holderIdentity && observedAt + durationMs > now) return "held-by-other";
    try {
      await options.leases.replace(
        options.namespace,
        options.name,
        {
          ...lease,
          spec: {
            ...current,
            ...spec,
            acquireTime: mine && current.acquireTime ? micro(current.acquireTime) : new V1MicroTime(now),
            leaseTransitions: (current.leaseTransitions ?? 0) + (mine ? 0 : 1),
          },
        },
        call,
      );
      return "acquired";
    } catch (error) {
      // Someone else wrote the Lease since we read it: they won this round.
      if (isKubeError(error, 409)) return "held-by-other";
      throw error;
    }
  }

  /** One attempt, given up (and its requests aborted) at `deadline` or when the election stops. */
  async function attempt(deadline: number): Promise<Attempt> {
    const bounded = new AbortController();
    const timer = setTimeout(() => bounded.abort(), Math.max(0, deadline - Date.now()));
    const stop = () => bounded.abort();
    abort.signal.addEventListener("abort", stop, { once: true });
    try {
      return await Promise.race([tryAcquireOrRenew(bounded.signal), aborted(bounded.signal)]);
    } catch (error) {
      options.log.warn({ err: error, lease: options.name }, "leader election: lease update failed");
      return "failed";
    } finally {
      clearTimeout(timer);
      abort.signal.removeEventListener("abort", stop);
      bounded.abort();
    }
  }

  async function stopLeading() {
    leading = false;
    steppingDown = true;
    try {
      await options.onStoppedLeading();
    } finally {
      steppingDown = false;
    }
  }

  async function run() {
    while (!abort.signal.aborted) {
      // A leader must renew by lastRenew + renewDeadline; a candidate's attempt gets as long.
      const result = await attempt((leading ? lastRenew : Date.now()) + renewDeadlineMs);
      if (abort.signal.aborted) break;
      if (result === "acquired") {
        lastRenew = Date.now();
        if (!leading) {
          leading = true;
          options.log.info({ identity: options.identity }, "leader election: started leading");
          await options.onStartedLeading();
        }
      } else if (leading && (result === "held-by-other" || Date.now() - lastRenew >= renewDeadlineMs)) {
        options.log.warn({ identity: options.identity, result }, "leader election: lost the lease");
        options.onLostLease?.();
        await stopLeading();
      }
      await sleep(retryPeriodMs, abort.signal);
    }
  }

  async function release() {
    // Bounded too: a shutdown must not hang on an API server that does not answer.
    const call = { signal: AbortSignal.timeout(renewDeadlineMs) };
    try {
      const lease = await options.leases.get(options.namespace, options.name, call);
      if (lease.spec?.holderIdentity !== options.identity) return;
      await options.leases.replace(
        options.namespace,
        options.name,
        {
          ...lease,
          spec: {
            ...lease.spec,
            ...(lease.spec.acquireTime ? { acquireTime: micro(lease.spec.acquireTime) } : {}),
            holderIdentity: "",
            leaseDurationSeconds: 1,
            renewTime: new V1MicroTime(),
          },
        },
        call,
      );
    } catch (error) {
      // The standby then waits for expiry instead: slower, still safe.
      options.log.warn({ err: error }, "leader election: could not release the lease");
    }
  }

  const running = run();
  return {
    isLeader: () => leading,
    healthy: () => !(leading || steppingDown) || Date.now() - lastRenew <= leaseDurationMs,
    async stop(stopOptions = {}) {
      abort.abort();
      await running;
      if (leading) {
        await stopLeading();
        if (stopOptions.release ?? true) await release();
      }
    },
  };
}
