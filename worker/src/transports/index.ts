import { createDirectTransport } from "./direct.ts";
import { createRelayTransport } from "./relay.ts";
import type { ShapingConfig, ShapingMetrics } from "./shaping/index.ts";
import type { MailTransport } from "./types.ts";

export type { MailTransport } from "./types.ts";

/** The parts of the program's config that choose and shape the transport. */
export interface TransportConfig {
  delivery: {
    mode: "relay" | "direct";
    directAllowedCidrs: readonly string[];
  };
  dns: { servers: readonly string[]; cacheSeconds: number };
  shaping: ShapingConfig;
  smtp: { url: string; hostname: string };
  worker: { concurrency: number };
}

/**
 * The transport `delivery.mode` names: `relay` hands everything to `smtp.url` with as many pooled
 * connections as the worker runs jobs; `direct` looks up each recipient domain's MX through `dns.servers`
 * (reusing answers for up to `dns.cacheSeconds`) and greets it as `smtp.hostname`, each MX host under its
 * destination's `shaping` (whose deferrals and backoffs `metrics` counts, when given).
 */
export function createTransport(config: TransportConfig, metrics?: ShapingMetrics): MailTransport {
  if (config.delivery.mode === "direct") {
    return createDirectTransport({
      dnsServers: config.dns.servers,
      dnsCacheSeconds: config.dns.cacheSeconds,
      allowedCidrs: config.delivery.directAllowedCidrs,
      heloName: config.smtp.hostname,
      shaping: { ...config.shaping, metrics },
    });
  }
  return createRelayTransport({
    url: config.smtp.url,
    maxConnections: config.worker.concurrency,
    heloName: config.smtp.hostname,
  });
}
