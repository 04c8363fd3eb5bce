import type { WebhookStream } from "@mailroom/core/webhooks";

/**
 * How one worker shares its background slots between accounts' webhook work (issue 26). An account's
 * `webhook_deliver` jobs hold at most `perAccountJobs` slots at once; the streams of a job over that share are
 * handed to the account's running jobs, which drain one shared queue with their lanes, and the job ends at
 * once, freeing its slot for another account. An endpoint has at most `perEndpointAttempts` attempts in
 * flight, so a stalled endpoint holds that many connections and no more. A stream whose endpoint is full
 * waits in the account's queue, where the lanes running that endpoint's attempts (the account's own) take it
 * when they finish; a lane that finds only such streams ends. Deferring it to a wake-up job instead (as
 * first built) cost a healthy endpoint two seconds per stream over the limit: one busy endpoint went from
 * ~2,600 to ~600 deliveries/s on the webhooks bench. In-process: each worker bounds its own share.
 */
export interface WebhookShareLimits {
  perAccountJobs: number;
  perEndpointAttempts: number;
}

/**
 * A quarter of the background slots per account (at least one); two jobs' lanes per endpoint: a stalled
 * endpoint holds that many connections (32 by default), a healthy busy one gets enough attempts in flight to
 * share the dispatcher's claim and record statements (the webhooks bench: ~1,000 deliveries/s to one
 * endpoint with one job's lanes, ~1,300–1,400 with two).
 */
export function defaultShareLimits(backgroundSlots: number, streamsInParallel: number): WebhookShareLimits {
  return {
    perAccountJobs: Math.max(1, Math.floor(backgroundSlots / 4)),
    perEndpointAttempts: streamsInParallel * 2,
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
   * with up to `lanes` lanes, or hands them to the account's running jobs (`handed_over`, also when some of
   * its streams are still queued for another job's lanes as it ends), or, when it can do neither, gives them
   * back (`refused`) for a later wake-up. `overLimit` receives the streams left queued when the account's
   * last job ends (none but after a failed drain).
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

  const hasRoom = (endpointId: string) => (inFlight.get(endpointId) ?? 0) < limits.perEndpointAttempts;
  const startAttempt = (endpointId: string) => inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
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
        for (;;) {
          const next = own.queue.findIndex((queued) => hasRoom(queued.endpointId));
          if (next < 0) return;
          const [stream] = own.queue.splice(next, 1) as [WebhookStream];
          startAttempt(stream.endpointId);
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
        if (own.jobs === 0) {
          for (const left of own.queue.splice(0)) overLimit(left);
          accounts.delete(account);
        }
      }
      // Streams of this job still queued for the account's other lanes live in memory only: the caller gives
      // them a later job should this worker die first.
      return streams.some((stream) => own.queue.includes(stream)) ? "handed_over" : "drained";
    },
  };
}
