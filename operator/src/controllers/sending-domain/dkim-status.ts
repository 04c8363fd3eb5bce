/** SendingDomain status.dkim and the Events that mark each rotation step (dkim-step.ts). */
import type { DkimKeyInfo, DomainRecord } from "@mailroom/core/domains";
import type { SendingDomainStatus } from "../../crds/sending-domain.ts";
import { toRfc3339 } from "../rfc3339.ts";

type DkimStatus = NonNullable<SendingDomainStatus["dkim"]>;
type SelectorEntry = NonNullable<DkimStatus["active"]>[number];

const ALGORITHM_NAMES = { rsa: "rsa-2048", ed25519: "ed25519" } as const;

function entry(key: DkimKeyInfo): SelectorEntry {
  const date = (d: Date | null) => (d ? toRfc3339(d) : undefined);
  const since = key.state === "pending" ? key.createdAt : key.activatedAt;
  return {
    selector: key.selector,
    algorithm: ALGORITHM_NAMES[key.algorithm],
    ...(since ? { since: toRfc3339(since) } : {}),
    ...(key.servedAt ? { servedSince: date(key.servedAt) } : {}),
    ...(key.withdrawAt ? { until: date(key.withdrawAt) } : {}),
  };
}

/** The domain's keys by rotation state, with their dates. */
export function dkimStatus(domain: DomainRecord): DkimStatus {
  const of = (state: DkimKeyInfo["state"]) => domain.dkimKeys.filter((k) => k.state === state).map(entry);
  const next = domain.dkimRotation.nextRotationAt;
  return {
    active: of("active"),
    pending: of("pending"),
    retiring: of("retiring"),
    ...(next ? { nextRotation: toRfc3339(next) } : {}),
  };
}

export interface RotationEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

const names = (entries: readonly SelectorEntry[]) => entries.map((e) => e.selector).join(", ");

/**
 * The rotation steps taken since the status was last written, one Event each: a new pending key, signing
 * switched, selectors withdrawn (a Warning when they were withdrawn without retiring: a compromise).
 * Nothing on the first report, when there is no earlier status to compare with.
 */
export function dkimRotationEvents(previous: DkimStatus | undefined, domain: DomainRecord): RotationEvent[] {
  if (!previous) return [];
  const now = dkimStatus(domain);
  const had = (list: DkimStatus["active"], selector: string) =>
    (list ?? []).some((e) => e.selector === selector);
  const events: RotationEvent[] = [];
  const started = (now.pending ?? []).filter((e) => !had(previous.pending, e.selector));
  if (started.length > 0) {
    events.push({
      type: "Normal",
      reason: "DKIMRotationStarted",
      message: `new DKIM key ${names(started)} published in status.records; it signs once DNS serves it`,
    });
  }
  const activated = (now.active ?? []).filter((e) => !had(previous.active, e.selector));
  if (activated.length > 0) {
    const retiring = now.retiring ?? [];
    events.push({
      type: activated.some((e) => had(previous.pending, e.selector)) ? "Normal" : "Warning",
      reason: "DKIMRotated",
      message:
        `signing with ${names(activated)}` +
        (retiring.length > 0 ? `; ${names(retiring)} stays published until ${retiring[0]?.until}` : ""),
    });
  }
  const current = [...(now.active ?? []), ...(now.pending ?? []), ...(now.retiring ?? [])];
  const before = [...(previous.active ?? []), ...(previous.pending ?? []), ...(previous.retiring ?? [])];
  const withdrawn = before.filter((e) => !current.some((c) => c.selector === e.selector));
  if (withdrawn.length > 0) {
    const retired = withdrawn.every((e) => had(previous.retiring, e.selector));
    events.push({
      type: retired ? "Normal" : "Warning",
      reason: "DKIMKeyWithdrawn",
      message: `withdrew ${names(withdrawn)}: remove ${withdrawn.map((e) => `${e.selector}._domainkey`).join(", ")} from DNS if you publish by hand`,
    });
  }
  return events;
}
