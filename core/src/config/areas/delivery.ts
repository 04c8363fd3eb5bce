import { z } from "zod";
import { parseCidrList } from "../../net/index.ts";
import { type AreaEnv, bool, cidrList, optionalPath, port } from "./kinds.ts";

/** The worker and how it delivers: relay or direct, retries. */
export const variables = {
  MAILROOM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  MAILROOM_WORKER_BACKGROUND_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(8),
  // Unset: as many as the delivery slots (ADR 0008's batched fetch). Smaller: a new job waits behind fewer prefetched ones.
  MAILROOM_WORKER_LOCAL_QUEUE_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  // Slots of their own for mail of accounts within their fair share (ADR 0064); 0: no reserved lane.
  MAILROOM_WORKER_RESERVED_CONCURRENCY: z.coerce.number().int().min(0).max(50).default(2),
  MAILROOM_WORKER_INTERNAL_PORT: port.default(9465),
  MAILROOM_WORKER_HEARTBEAT_SECONDS: z.coerce.number().min(0.1).max(60).default(5),
  MAILROOM_WORKER_DEAD_AFTER_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  MAILROOM_DELIVERY_MODE: z.enum(["relay", "direct"]).default("relay"),
  MAILROOM_DIRECT_ALLOWED_CIDRS: cidrList,
  // For tests and labs: MX hosts and MTA-STS policy hosts on other ports than the Internet's 25 and 443.
  MAILROOM_DIRECT_MX_PORT: port.min(1).default(25),
  MAILROOM_DIRECT_MTA_STS_PORT: port.min(1).default(443),
  MAILROOM_TLS_EXTRA_CA_FILE: optionalPath,
  MAILROOM_RELAY_ALLOW_UNVERIFIED_TLS: bool.default(false),
  MAILROOM_RETRY_HORIZON_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 3600),
  MAILROOM_RETRY_BASE_SECONDS: z.coerce.number().min(0.1).default(60),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    worker: {
      concurrency: e.MAILROOM_WORKER_CONCURRENCY,
      backgroundConcurrency: e.MAILROOM_WORKER_BACKGROUND_CONCURRENCY,
      localQueueSize: e.MAILROOM_WORKER_LOCAL_QUEUE_SIZE ?? e.MAILROOM_WORKER_CONCURRENCY,
      reservedConcurrency: e.MAILROOM_WORKER_RESERVED_CONCURRENCY,
      internalPort: e.MAILROOM_WORKER_INTERNAL_PORT,
      heartbeatSeconds: e.MAILROOM_WORKER_HEARTBEAT_SECONDS,
      deadAfterSeconds: e.MAILROOM_WORKER_DEAD_AFTER_SECONDS,
    },
    delivery: {
      mode: e.MAILROOM_DELIVERY_MODE,
      directAllowedCidrs: e.MAILROOM_DIRECT_ALLOWED_CIDRS
        ? parseCidrList(e.MAILROOM_DIRECT_ALLOWED_CIDRS)
        : [],
      /** Port of every MX host (25; another only for tests and labs, and for TLSA names `_<port>._tcp`). */
      directMxPort: e.MAILROOM_DIRECT_MX_PORT,
      /** Port of every MTA-STS policy host (443; another only for tests and labs). */
      directMtaStsPort: e.MAILROOM_DIRECT_MTA_STS_PORT,
      /** PEM bundle trusted besides the system's CAs: MX hosts, MTA-STS policy hosts and the relay. */
      extraCaFile: e.MAILROOM_TLS_EXTRA_CA_FILE,
      relayAllowUnverifiedTls: e.MAILROOM_RELAY_ALLOW_UNVERIFIED_TLS,
      retry: {
        baseDelaySeconds: e.MAILROOM_RETRY_BASE_SECONDS,
        maxDelaySeconds: 4 * 3600,
        horizonSeconds: e.MAILROOM_RETRY_HORIZON_SECONDS,
      },
    },
  };
}
