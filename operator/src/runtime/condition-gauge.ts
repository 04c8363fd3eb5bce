/**
 * `mailroom_resource_condition{kind,namespace,name,type,status}`: 1 for each condition a resource's status holds
 * now, as kube-state-metrics reports a Pod's. It follows what the informers see (the status the API server
 * stores), not what a reconcile meant to write, so the gauge and `kubectl get` never disagree. A condition
 * whose status changed loses its old series; a deleted resource loses all of its.
 */
import type { Gauge } from "prom-client";
import { CLAIM_ANNOTATION } from "../controllers/sync.ts";

type Labels = "kind" | "namespace" | "name" | "type" | "status";

interface Observed {
  metadata: { namespace?: string; name?: string; annotations?: Record<string, string> };
  status?: unknown;
}

export interface ConditionGauge {
  /** Reports `object`'s conditions, or forgets `key` (`namespace/name`) when the object is gone. */
  observe(kind: string, key: string, object: Observed | undefined): void;
  /** Forgets every resource, when this replica stops leading (the new leader reports them). */
  reset(): void;
}

export function createConditionGauge(gauge: Gauge<Labels>, instance: string): ConditionGauge {
  // kind/key → the label sets reported for it, to remove exactly those.
  const reported = new Map<string, Record<Labels, string>[]>();
  const forget = (id: string) => {
    for (const labels of reported.get(id) ?? []) gauge.remove(labels);
    reported.delete(id);
  };
  return {
    observe(kind, key, object) {
      const id = `${kind}/${key}`;
      forget(id);
      if (!object) return;
      // Another installation's resource is its to report: two series for one condition would double sums.
      const claimant = object.metadata.annotations?.[CLAIM_ANNOTATION];
      if (claimant !== undefined && claimant !== instance) return;
      const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
        ?.conditions;
      const sets = (conditions ?? []).map((c) => ({
        kind,
        namespace: object.metadata.namespace ?? "",
        name: object.metadata.name ?? "",
        type: c.type,
        status: c.status,
      }));
      for (const labels of sets) gauge.set(labels, 1);
      reported.set(id, sets);
    },
    reset() {
      for (const id of [...reported.keys()]) forget(id);
    },
  };
}
