import { z } from "zod";
import type { AreaEnv } from "./kinds.ts";

// A hostname under .invalid (RFC 2606): no real mailbox can ever live there, whatever DNS says.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The mailbox simulator (issue 30 item 3, ADR 0049): its reserved domain and how fast it answers. */
export const variables = {
  MAILROOM_SIMULATOR_DOMAIN: z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .refine((v) => v === "off" || DOMAIN.test(v), "a domain name, or off")
    .default("simulator.mailroom.invalid"),
  // 0: the retry job is ready at once and the insert's NOTIFY wakes a worker; a positive delay is found by the
  // worker's fallback poll (2 s), after the delay.
  MAILROOM_SIMULATOR_RETRY_SECONDS: z.coerce.number().min(0).max(60).default(0),
  // delayed@ holds a delivery slot while it waits, as a slow MX does: kept short so it cannot hold many long.
  MAILROOM_SIMULATOR_DELAY_SECONDS: z.coerce.number().min(0).max(10).default(0.5),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    simulator: {
      /** Undefined: the simulator is off and its domain is an ordinary (unreachable) one. */
      domain: e.MAILROOM_SIMULATOR_DOMAIN === "off" ? undefined : e.MAILROOM_SIMULATOR_DOMAIN,
      /** The retry delay of a simulated temporary failure (soft-bounced@), instead of the real policy's. */
      retrySeconds: e.MAILROOM_SIMULATOR_RETRY_SECONDS,
      /** How long delayed@ waits before its 250. */
      delaySeconds: e.MAILROOM_SIMULATOR_DELAY_SECONDS,
    },
  };
}
