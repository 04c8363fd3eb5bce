import { z } from "zod";
import { parseCidrList } from "../../net/index.ts";
import { ConfigError } from "../error.ts";
import { type AreaEnv, bool, cidrList, optionalPath, port } from "./kinds.ts";

/** The worker's lanes (ADR 0012, ADR 0064), each a graphile-worker runner a worker process may run. */
export const WORKER_LANES = ["delivery", "reserved", "background"] as const;
export type WorkerLane = (typeof WORKER_LANES)[number];

const laneList = z
  .string()
  .transform((text) =>
    text
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  )
  .pipe(
    z
      .array(z.enum(WORKER_LANES, { error: `a comma-separated list of ${WORKER_LANES.join(", ")}` }))
      .min(1)
      .refine((lanes) => new Set(lanes).size === lanes.length, "each lane once"),
  );

/** The worker and how it delivers: relay or direct, retries. */
export const variables = {
  MAILROOM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  MAILROOM_WORKER_BACKGROUND_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(8),
  // Unset: as many as the delivery slots (ADR 0008's batched fetch). Smaller: a new job waits behind fewer prefetched ones.
  MAILROOM_WORKER_LOCAL_QUEUE_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  // Slots of their own for mail of accounts within their fair share (ADR 0064); 0: no reserved lane.
  MAILROOM_WORKER_RESERVED_CONCURRENCY: z.coerce.number().int().min(0).max(50).default(2),
  // The lanes this worker process runs (default all): the chart runs `reserved` in a Deployment of its own
  // and the others in the main one, so the reserved lane's deliveries get an event loop and CPU share of their own.
  MAILROOM_WORKER_LANES: laneList.optional(),
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

/** The lanes to run: as listed, the reserved one only with slots; refuses a process that would run none. */
function lanesOf(e: AreaEnv<typeof variables>): readonly WorkerLane[] {
  const listed = e.MAILROOM_WORKER_LANES ?? WORKER_LANES;
  // In WORKER_LANES's order, whatever the list's.
  const lanes = WORKER_LANES.filter(
    (l) => listed.includes(l) && (l !== "reserved" || e.MAILROOM_WORKER_RESERVED_CONCURRENCY > 0),
  );
  if (lanes.length === 0) {
    throw new ConfigError(
      "invalid configuration:\n  MAILROOM_WORKER_LANES: only the reserved lane, which " +
        "MAILROOM_WORKER_RESERVED_CONCURRENCY=0 turns off: this worker would run nothing",
    );
  }
  return lanes;
}

export function build(e: AreaEnv<typeof variables>) {
  const lanes = lanesOf(e);
  const deliverySlots =
    (lanes.includes("delivery") ? e.MAILROOM_WORKER_CONCURRENCY : 0) +
    (lanes.includes("reserved") ? e.MAILROOM_WORKER_RESERVED_CONCURRENCY : 0);
  return {
    worker: {
      concurrency: e.MAILROOM_WORKER_CONCURRENCY,
      backgroundConcurrency: e.MAILROOM_WORKER_BACKGROUND_CONCURRENCY,
      localQueueSize: e.MAILROOM_WORKER_LOCAL_QUEUE_SIZE ?? e.MAILROOM_WORKER_CONCURRENCY,
      reservedConcurrency: e.MAILROOM_WORKER_RESERVED_CONCURRENCY,
      /** The lanes this process runs; `reserved` is in it only with slots (reservedConcurrency > 0). */
      lanes,
      /** Deliveries this process runs at once: the slots of the delivery lanes it runs (relay sessions, too). */
      deliverySlots,
      /** Every job slot this process runs (each holds a Postgres client while it records its outcome). */
      slots: deliverySlots + (lanes.includes("background") ? e.MAILROOM_WORKER_BACKGROUND_CONCURRENCY : 0),
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
