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
