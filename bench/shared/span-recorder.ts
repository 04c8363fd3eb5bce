/**
 * A bench worker's record of its `deliver` spans for one account (bench/fairness's quiet tenant), one JSON line
 * per delivery appended to BENCH_TRACE_FILE: the task's start, the steps worker/src/tasks/deliver.ts marks as
 * span events (claimed, composed, signed) and its end, in wall-clock ms comparable with the sink's and
 * Postgres's clocks. Only a bench installs it (the worker itself runs with tracing off unless configured), and
 * only in the processes it forks with BENCH_TRACE_FILE and BENCH_TRACE_ACCOUNT set; every other account's spans
 * are dropped as they end.
 */
import { appendFileSync } from "node:fs";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from "@opentelemetry/sdk-trace-base";

/** One delivery of the traced account as a bench worker saw it. */
export interface DeliverSpan {
  emailId: string;
  /** The lanes of the process that ran it (MAILROOM_WORKER_LANES; empty: all). */
  lanes: string;
  start: number;
  claimed?: number;
  composed?: number;
  signed?: number;
  end: number;
}

const msOf = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

/** Installs the recorder when the environment asks for it; returns whether it did. */
export function recordDeliverSpans(env: NodeJS.ProcessEnv): boolean {
  const file = env.BENCH_TRACE_FILE;
  const account = env.BENCH_TRACE_ACCOUNT;
  if (!file || !account) return false;
  const lanes = env.MAILROOM_WORKER_LANES ?? "";
  const processor: SpanProcessor = {
    onStart: () => {},
    onEnd: (span: ReadableSpan) => {
      if (span.name !== "deliver" || span.attributes["mailroom.account"] !== account) return;
      const record: DeliverSpan = {
        emailId: String(span.attributes["mailroom.email_id"]),
        lanes,
        start: msOf(span.startTime),
        end: msOf(span.endTime),
      };
      for (const event of span.events) {
        if (event.name === "claimed" || event.name === "composed" || event.name === "signed")
          record[event.name] = msOf(event.time);
      }
      appendFileSync(file, `${JSON.stringify(record)}\n`);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
  return true;
}
