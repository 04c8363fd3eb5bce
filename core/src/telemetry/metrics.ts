import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** One registry per program, with the metrics every program may update. */
export function createMetrics(program: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ program });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: "mailroom_http_requests_total",
      help: "API requests answered, by route, method and status code.",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "mailroom_http_request_duration_seconds",
      help: "API request duration in seconds, by route.",
      labelNames: ["route"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    emailsAccepted: new Counter({
      name: "mailroom_emails_accepted_total",
      help: "Emails accepted by the API, by result (queued, scheduled, duplicate).",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    deliveryOutcomes: new Counter({
      name: "mailroom_delivery_outcomes_total",
      help: "Delivery attempts finished by the worker, by outcome.",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    deliveryDuration: new Histogram({
      name: "mailroom_delivery_duration_seconds",
      help: "Time of one SMTP handover attempt in seconds.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    handoverToRecord: new Histogram({
      name: "mailroom_delivery_unrecorded_seconds",
      help:
        "Time from the receiver's answer to the attempt's record in Postgres: a worker that dies within it " +
        "leaves the email to be sent again.",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
