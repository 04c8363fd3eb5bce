import type { Pool } from "@mailroom/core/db";
import { fanOutEvents } from "@mailroom/core/webhooks";
import type { Task } from "graphile-worker";
import "./types.ts";

/**
 * Turns the events of one outbox write into deliveries and their `webhook_deliver` jobs. Throwing (e.g. the
 * database is away) lets graphile-worker retry it; a repeat creates nothing twice.
 */
export function makeWebhookFanoutTask(deps: { pool: Pool }): Task<"webhook_fanout"> {
  return async (payload, helpers) => {
    const created = await fanOutEvents(deps.pool, payload.eventIds);
    helpers.logger.debug(`webhook fan-out: ${payload.eventIds.length} events, ${created} deliveries`);
  };
}
