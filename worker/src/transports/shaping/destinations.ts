import type { Config } from "@mailroom/core/config";

/** The shaping settings of the worker's config (`core/src/config/areas/shaping.ts`). */
export type ShapingConfig = Config["shaping"];
export type DestinationLimits = ShapingConfig["defaults"];

/** Where a transaction goes, for shaping: one provider group, or one MX host of no group. */
export interface Destination {
  /** The key limits and backoff are kept under: the group's name, or the MX host's name. */
  key: string;
  /** The metric label: the group's name, or `other` (MX host names would make the label set unbounded). */
  label: string;
  limits: DestinationLimits;
}

/**
 * The destination of an MX host: the first provider group one of whose suffixes is the host or a parent of
 * it (Gmail's hosts all share its limits and its reputation of us, whichever domain they serve), else the
 * host alone.
 */
export function destinationOf(
  mxHost: string,
  config: Pick<ShapingConfig, "defaults" | "providers">,
): Destination {
  const host = mxHost.toLowerCase().replace(/\.$/, "");
  for (const group of config.providers) {
    if (group.mxSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
      const { concurrency, messagesPerConnection, ratePerMinute } = group;
      return {
        key: `group:${group.name}`,
        label: group.name,
        limits: { concurrency, messagesPerConnection, ratePerMinute },
      };
    }
  }
  return { key: `host:${host}`, label: "other", limits: config.defaults };
}

/** One destination's pace as this process holds it now, for the worker's publisher (ADR 0066). */
export interface DestinationSnapshot {
  /** The destination's key: `group:<name>` or `host:<mx>`. */
  destination: string;
  /** The share of the configured limits in force (1: all; below it the destination is backed off). */
  level: number;
  concurrency: number;
  /** Transactions started per minute allowed now; 0 without a configured rate. */
  ratePerMinute: number;
  inFlight: number;
  /** While paused: until when (ms since the epoch). */
  pausedUntilMs?: number;
  /** The rate-limit reply of the last backoff. */
  lastReply: string;
}

/** The shaping state a transport holds, when it shapes (direct delivery). */
export interface ShapingView {
  snapshot(): DestinationSnapshot[];
  /** `listener` is called when a destination backs off or comes back to full level. */
  onChange(listener: () => void): void;
}
