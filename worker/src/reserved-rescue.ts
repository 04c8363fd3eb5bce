import type { Pool } from "@mailroom/core/db";
import { rescueReservedDeliveries } from "@mailroom/core/jobs";
import type { Logger } from "@mailroom/core/telemetry";

export interface ReservedRescue {
  /** Jobs within their share were announced: hand over those still waiting `afterMs` from now. */
  announced(): void;
  stop(): Promise<void>;
}

/**
 * The delivery lane's side of ADR 0074: `deliver_reserved` jobs are the reserved lane's alone, so a process that
 * runs the delivery lane hands back to it, as `deliver`, every such job the reserved lane has not taken within
 * `afterMs`: `afterMs` after each announcement of jobs within their share (the enqueue's `withinShare`
 * notification, which this process's delivery lane hears), and once every `intervalMs` whatever was heard (a
 * lost notification, a reserved pod killed with jobs announced to it and unlocked by the heartbeat since).
 * Announcements within one wait share one statement; one statement runs at a time.
 */
export function startReservedRescue(
  pool: Pool,
  logger: Logger,
  options: { afterMs: number; intervalMs: number },
): ReservedRescue {
  let timer: NodeJS.Timeout | undefined;
  // An announcement heard while a wait was already set: it needs a wait of its own once that one ends.
  let heardSince = false;
  let running: Promise<void> | undefined;
  // Asked for while a statement ran (it may have read too early for the jobs asked about): one more after it.
  let again = false;
  let stopped = false;

  const rescue = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = rescueReservedDeliveries(pool, options.afterMs)
      .then((handed) => {
        if (handed > 0)
          logger.debug({ handed }, "handed the reserved lane's waiting jobs to the delivery lane");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not hand over reserved jobs"))
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          rescue();
        }
      });
  };
  const wait = () => {
    timer = setTimeout(() => {
      timer = undefined;
      rescue();
      if (heardSince && !stopped) {
        heardSince = false;
        wait();
      }
    }, options.afterMs);
    timer.unref();
  };
  const periodic = setInterval(rescue, options.intervalMs);
  periodic.unref();
  return {
    announced: () => {
      if (stopped) return;
      if (timer) heardSince = true;
      else wait();
    },
    stop: async () => {
      stopped = true;
      clearInterval(periodic);
      clearTimeout(timer);
      await running;
    },
  };
}
