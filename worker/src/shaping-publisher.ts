import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Pool } from "@mailroom/core/db";
import type { Logger } from "@mailroom/core/telemetry";
import { clearShapingState, publishShapingState, SHAPING_PUBLISH_SECONDS } from "@mailroom/core/transit";
import type { ShapingView } from "./transports/shaping/index.ts";

export interface ShapingPublisher {
  /** Publishes now (or, while a publish runs, right after it); resolves once the state is written. */
  publish(): Promise<void>;
  /** Stops publishing and removes this process's rows. */
  stop(): Promise<void>;
}

/**
 * Publishes this process's shaping state per destination (held in memory, ADR 0059) to Postgres for the
 * console's transit view (ADR 0066): every `SHAPING_PUBLISH_SECONDS`, and at once when a destination backs off
 * or recovers. One statement per publish, under an id of this process; a failure is logged and the next
 * publish tries again (delivery never waits for it).
 */
export function startShapingPublisher(
  pool: Pool,
  logger: Logger,
  view: ShapingView,
  options: { intervalMs?: number } = {},
): ShapingPublisher {
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const once = async () => {
    const states = view.snapshot().map((s) => ({
      ...s,
      pausedUntil: s.pausedUntilMs === undefined ? undefined : new Date(s.pausedUntilMs),
    }));
    await publishShapingState(pool, workerId, states).catch((error: Error) => {
      logger.warn({ err: error }, "shaping state not published");
    });
  };
  const publish = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  view.onChange(() => void publish());
  const timer = setInterval(() => void publish(), options.intervalMs ?? SHAPING_PUBLISH_SECONDS * 1000);
  timer.unref();
  return {
    publish,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await clearShapingState(pool, workerId).catch((error: Error) => {
        logger.warn({ err: error }, "shaping state not cleared (readers ignore it once stale)");
      });
    },
  };
}
