/**
 * The load generator of bench/send/main.ts, forked as its own process so that it never shares an event loop with
 * the server under test. Receives one LoadJob, runs autocannon for a fixed time, answers with a LoadReport
 * (including every id the 2xx answers reported, for the row check) and exits.
 */
import autocannon, { type AutocannonRequest } from "autocannon";
import {
  BATCH_SIZE,
  type LoadJob,
  type LoadMessage,
  type LoadReport,
  requestBody,
  type ScenarioKind,
} from "./protocol.ts";

const MAX_ANOMALIES = 5;

let finished = false;
// The orchestrator going away (crash, Ctrl-C) must not leave a load generator hammering anything.
process.on("disconnect", () => process.exit(finished ? 0 : 1));

function post(message: LoadMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) throw new Error("load.ts must be forked with an IPC channel");
    process.send(message, () => resolve());
  });
}

/** Pulls the ids out of a 2xx body; returns a description of what is wrong with it, if anything. */
function collectIds(kind: ScenarioKind, body: string, ids: string[]): string | undefined {
  const parsed = JSON.parse(body) as {
    id?: string;
    status?: string;
    messageId?: string;
    data?: { status?: string; messageId?: string }[];
  };
  if (kind === "baseline" || kind === "durable") {
    if (parsed.id === undefined) return body;
    ids.push(String(parsed.id));
    return undefined;
  }
  const items = kind === "batch" ? (parsed.data ?? []) : [parsed];
  if (kind === "batch" && items.length !== BATCH_SIZE) return body.slice(0, 300);
  for (const item of items) {
    // Every request carries fresh idempotency keys, so anything but `queued` is a bug worth reporting.
    if (item.status !== "queued" || !item.messageId) return body.slice(0, 300);
    ids.push(item.messageId);
  }
  return undefined;
}

function run(job: LoadJob): void {
  const statusCounts: Record<string, number> = {};
  const ids: string[] = [];
  const anomalies: string[] = [];
  let sequence = 0;
  const cpuAtStart = process.cpuUsage();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (job.apiKey) headers.authorization = `Bearer ${job.apiKey}`;

  const request: AutocannonRequest = {
    method: "POST",
    path: job.path,
    headers,
    setupRequest: (req) => {
      sequence += 1;
      req.body = requestBody(job.kind, `${job.keyPrefix}-${sequence}`, sequence);
      return req;
    },
    onResponse: (status, body) => {
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
      let anomaly: string | undefined;
      if (status >= 200 && status < 300) {
        try {
          anomaly = collectIds(job.kind, body, ids);
        } catch {
          anomaly = `unparsable 2xx body: ${body.slice(0, 200)}`;
        }
      } else {
        anomaly = `${status} ${body.slice(0, 300)}`;
      }
      if (anomaly && anomalies.length < MAX_ANOMALIES) anomalies.push(anomaly);
    },
  };

  const instance = autocannon(
    {
      url: job.url,
      connections: job.connections,
      duration: job.seconds,
      timeout: 10,
      servername: job.servername,
      // autocannon itself never verifies the peer (it forces rejectUnauthorized: false); the orchestrator
      // makes one verified request with this CA before any load, so the chain is known to be good.
      tlsOptions: { ca: job.ca },
      requests: [request],
    },
    (error, result) => {
      if (error) {
        console.error(`load generator: ${error.message}`);
        process.exit(1);
      }
      const cpu = process.cpuUsage(cpuAtStart);
      const answered = Object.values(statusCounts).reduce((a, b) => a + b, 0);
      const report: LoadReport = {
        seconds: result.duration,
        sent: result.requests.sent,
        answered,
        statusCounts,
        errors: result.errors,
        timeouts: result.timeouts,
        latency: {
          p50: result.latency.p50,
          p99: result.latency.p99,
          mean: result.latency.mean,
          max: result.latency.max,
        },
        ids,
        anomalies,
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
      finished = true;
      void post({ type: "done", report }).then(() => process.disconnect());
    },
  );
  instance.on("tick", (tick: { counter: number }) => {
    void post({ type: "tick", count: tick.counter });
  });
}

process.once("message", (job: LoadJob) => run(job));
