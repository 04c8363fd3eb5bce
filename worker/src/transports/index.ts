import { readFileSync } from "node:fs";
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
    directMxPort: number;
    directMtaStsPort: number;
    extraCaFile?: string | undefined;
    relayAllowUnverifiedTls: boolean;
  };
  dns: { servers: readonly string[]; cacheSeconds: number; validatesDnssec: boolean };
  shaping: ShapingConfig;
  smtp: { url: string; hostname: string };
  worker: { deliverySlots: number };
}

/**
 * The transport `delivery.mode` names: `relay` hands everything to `smtp.url` with as many pooled
 * connections as the worker runs deliveries (both delivery lanes); `direct` looks up each recipient domain's
 * MX through `dns.servers` (reusing answers for up to `dns.cacheSeconds`) and greets it as `smtp.hostname`,
 * each MX host under its destination's `shaping` (whose deferrals and backoffs `metrics` counts, when given).
 */
export function createTransport(config: TransportConfig, metrics?: ShapingMetrics): MailTransport {
  // Read once at start: a CA bundle is changed by a restart, like the rest of the configuration.
  const extraCa = config.delivery.extraCaFile ? readFileSync(config.delivery.extraCaFile, "utf8") : undefined;
  if (config.delivery.mode === "direct") {
    return createDirectTransport({
      dnsServers: config.dns.servers,
      dnsCacheSeconds: config.dns.cacheSeconds,
      allowedCidrs: config.delivery.directAllowedCidrs,
      heloName: config.smtp.hostname,
      port: config.delivery.directMxPort,
      mtaStsPort: config.delivery.directMtaStsPort,
      shaping: { ...config.shaping, metrics },
      dnssecValidating: config.dns.validatesDnssec,
      ...(extraCa ? { extraCas: [extraCa] } : {}),
    });
  }
  return createRelayTransport({
    url: config.smtp.url,
    // A session for every delivery slot of this process, the reserved lane's included: else its slots would
    // wait for a session.
    maxConnections: config.worker.deliverySlots,
    heloName: config.smtp.hostname,
    allowUnverifiedTls: config.delivery.relayAllowUnverifiedTls,
    ...(extraCa ? { ca: extraCa } : {}),
  });
}
