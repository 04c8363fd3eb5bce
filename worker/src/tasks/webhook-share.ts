import type { WebhookStream } from "@mailroom/core/webhooks";

/**
 * How one worker shares its background slots between accounts' webhook work (issue 26). An account's
 * `webhook_deliver` jobs hold at most `perAccountJobs` slots at once; the streams of a job over that share are
 * handed to the account's running jobs, which drain one shared queue with their lanes, and the job ends at
 * once, freeing its slot for another account. An endpoint has at most `perEndpointAttempts` attempts in
 * flight; a stream over that is woken again later by a job, so a stalled endpoint holds that many
 * connections and no more lanes. In-process: each worker bounds its own share.
 */
export interface WebhookShareLimits {
  perAccountJobs: number;
  perEndpointAttempts: number;
}

/** A quarter of the background slots per account (at least one), a job's lanes per endpoint. */
export function defaultShareLimits(backgroundSlots: number, streamsInParallel: number): WebhookShareLimits {
  return {
    perAccountJobs: Math.max(1, Math.floor(backgroundSlots / 4)),
    perEndpointAttempts: streamsInParallel,
  };
}

interface AccountWork {
  jobs: number;
  lanes: number;
  queue: WebhookStream[];
}

export interface WebhookShare {
  /**
   * Runs a job's streams within the share: drains them (and whatever the account's other jobs hand over)
   * with up to `lanes` lanes, or hands them to the account's running jobs (`handedOver`), or, when it can do
   * neither, gives them back (`refused`) for a later wake-up. `overLimit` receives the streams an endpoint
   * had no room for.
   */
  run(
    account: string,
    streams: readonly WebhookStream[],
    lanes: number,
    drain: (stream: WebhookStream) => Promise<void>,
    overLimit: (stream: WebhookStream) => void,
  ): Promise<"drained" | "handed_over" | "refused">;
}

export function createWebhookShare(limits: WebhookShareLimits): WebhookShare {
  const accounts = new Map<string, AccountWork>();
  const inFlight = new Map<string, number>();

  const startAttempt = (endpointId: string) => {
    const now = inFlight.get(endpointId) ?? 0;
    if (now >= limits.perEndpointAttempts) return false;
    inFlight.set(endpointId, now + 1);
    return true;
  };
  const endAttempt = (endpointId: string) => {
    const now = (inFlight.get(endpointId) ?? 1) - 1;
    if (now <= 0) inFlight.delete(endpointId);
    else inFlight.set(endpointId, now);
  };

  return {
    async run(account, streams, lanes, drain, overLimit) {
      let work = accounts.get(account);
      if (work && work.jobs >= limits.perAccountJobs) {
        // Lanes still running take what is queued before they stop (this runs synchronously, between them).
        if (work.lanes === 0) return "refused";
        work.queue.push(...streams);
        return "handed_over";
      }
      if (!work) {
        work = { jobs: 0, lanes: 0, queue: [] };
        accounts.set(account, work);
      }
      const own = work;
      own.jobs += 1;
      own.queue.push(...streams);
      const lane = async () => {
        for (let stream = own.queue.shift(); stream !== undefined; stream = own.queue.shift()) {
          if (!startAttempt(stream.endpointId)) {
            overLimit(stream);
            continue;
          }
          try {
            await drain(stream);
          } finally {
            endAttempt(stream.endpointId);
          }
        }
      };
      const count = Math.max(1, Math.min(lanes, own.queue.length));
      own.lanes += count;
      try {
        await Promise.all(
          Array.from({ length: count }, async () => {
            try {
              await lane();
            } finally {
              own.lanes -= 1;
            }
          }),
        );
      } finally {
        own.jobs -= 1;
        if (own.jobs === 0 && own.queue.length === 0) accounts.delete(account);
      }
      return "drained";
    },
  };
}
