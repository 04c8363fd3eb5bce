/** The operator's Prometheus metrics, registered on the registry the program passes in. */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export function createOperatorMetrics(registry: Registry) {
  return {
    reconciles: new Counter({
      name: "mailroom_operator_reconciles_total",
      help: "Reconciles run, by kind and result (success, error).",
      labelNames: ["kind", "result"] as const,
      registers: [registry],
    }),
    reconcileErrors: new Counter({
      name: "mailroom_operator_reconcile_errors_total",
      help: "Reconciles that failed and were retried with backoff, by kind.",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: "mailroom_operator_reconcile_duration_seconds",
      help: "Time of one reconcile in seconds, by kind.",
      labelNames: ["kind"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "mailroom_operator_queue_depth",
      help: "Objects waiting in the work queue, by kind.",
      labelNames: ["kind"] as const,
      registers: [registry],
    }),
    informerRestarts: new Counter({
      name: "mailroom_operator_informer_restarts_total",
      help: "Times an informer relisted, by kind and reason (expired, error, short_watch).",
      labelNames: ["kind", "reason"] as const,
      registers: [registry],
    }),
    resourceCondition: new Gauge({
      name: "mailroom_resource_condition",
      help: "1 for each condition a Mailroom resource's status holds, by kind, namespace, name, type and status.",
      labelNames: ["kind", "namespace", "name", "type", "status"] as const,
      registers: [registry],
    }),
    leader: new Gauge({
      name: "mailroom_operator_leader",
      help: "1 while this replica holds the leader Lease and reconciles, else 0.",
      registers: [registry],
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
