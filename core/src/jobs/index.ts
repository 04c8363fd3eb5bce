import type { Queryable } from "../db/pool.ts";

export {
  completeTakenJobs,
  failTakenJob,
  rescueReservedDeliveries,
  unlockJobsNotHeld,
  withinShareAnnounced,
} from "./reserved.ts";

/**
 * The worker's tasks and their payloads, declared once (issue 20 item 2). Each task's jobs are written by
 * exactly one SQL function, `mailroom_enqueue_<task>` in core/sql/functions, whether the enqueue starts in
 * TypeScript (the functions below) or inside another SQL statement or function (the accept statement, the
 * delivery record, the webhook fan-out): so a payload has one shape, and `jobs.int.test.ts` checks that
 * shape against the builders here. The worker types its tasks from `JobPayloads` (worker/src/tasks/types.ts).
 */

/** W3C trace context (`traceparent`, `tracestate`) of the span that caused a job or an event. */
export type TraceCarrier = Record<string, string>;

/** `deliver`: hand one email to SMTP (written by `mailroom_enqueue_deliver`). */
export interface DeliverPayload {
  emailId: string;
  /** The trace the delivery continues: the accepting request's, then the previous attempt's. */
  trace?: TraceCarrier;
}

/** `webhook_fanout`: turn outbox events into deliveries (written by `mailroom_enqueue_webhook_fanout`). */
export interface WebhookFanoutPayload {
  eventIds: string[];
}

/** `webhook_deliver`: work through streams of one endpoint (written by `mailroom_enqueue_webhook_deliver`). */
export interface WebhookDeliverPayload {
  endpointId: string;
  streams: string[];
}

/** `process_report`: read one stored bounce or complaint report (written by `mailroom_enqueue_process_report`). */
export interface ProcessReportPayload {
  reportId: string;
}

/** Periodic tasks: graphile-worker's crontab enqueues them (`PERIODIC_JOBS`), with no payload of ours. */
type CronPayload = Record<string, never>;

export interface JobPayloads {
  deliver: DeliverPayload;
  /**
   * A `deliver` job added within its account's fair share while a reserved lane is alive: only the reserved
   * lane lists this task (ADR 0074); `mailroom_rescue_reserved_deliveries` turns one it leaves into `deliver`.
   */
  deliver_reserved: DeliverPayload;
  webhook_fanout: WebhookFanoutPayload;
  webhook_deliver: WebhookDeliverPayload;
  process_report: ProcessReportPayload;
  purge_expired: CronPayload;
  recheck_domains: CronPayload;
  rotate_dkim: CronPayload;
  guard_reputation: CronPayload;
  send_tls_reports: CronPayload;
}

export type TaskName = keyof JobPayloads;

/**
 * The worker lane each task runs in (ADR 0012): deliveries alone in theirs, so that no amount of webhook or
 * periodic work takes a slot a delivery needs. The worker builds each lane's task list from this (typed by
 * `TasksOfLane`), and docs/architecture.md names the same lanes (test/structure/architecture-map.test.ts).
 */
export const JOB_LANES = {
  deliver: "delivery",
  deliver_reserved: "reserved",
  webhook_fanout: "background",
  webhook_deliver: "background",
  process_report: "background",
  purge_expired: "background",
  recheck_domains: "background",
  rotate_dkim: "background",
  guard_reputation: "background",
  send_tls_reports: "background",
} as const satisfies Record<TaskName, "delivery" | "reserved" | "background">;

export type LaneName = (typeof JOB_LANES)[TaskName];
export type TasksOfLane<Lane extends LaneName> = {
  [T in TaskName]: (typeof JOB_LANES)[T] extends Lane ? T : never;
}[TaskName];

/**
 * The reserved delivery lane (ADR 0064): a few slots of their own that run only the `deliver` jobs added within
 * their account's fair share, so that a quiet account's email never waits for a flood's deliveries to free a
 * slot of the `delivery` lane (which runs every `deliver` job, by priority). Same task and handler; a worker
 * without this lane (an older release) still runs every job. docs/architecture.md names it in the task's row.
 * While it is alive (its heartbeat's `reserved_until`), jobs within their share are added as `ownTask`, which
 * the delivery lane does not list, so its local queue cannot take them first (ADR 0074). It is a loop of its
 * own, not a graphile-worker runner: its take locks jobs and claims their emails in one round trip (ADR 0075).
 */
export const RESERVED_DELIVERY_LANE = {
  name: "reserved",
  task: "deliver",
  ownTask: "deliver_reserved",
  /**
   * How long a job of `ownTask` waits for the reserved lane before the delivery lanes get it: a few times the
   * lane's own time to a quiet email under a flood (36–69 ms, ADR 0072), so only a burst beyond its slots or a
   * lane that died pays it.
   */
  rescueAfterMs: 250,
} as const satisfies {
  name: string;
  task: TaskName;
  ownTask: TaskName;
  rescueAfterMs: number;
};

type PeriodicTask = { [T in TaskName]: JobPayloads[T] extends CronPayload ? T : never }[TaskName];

/**
 * When graphile-worker's crontab enqueues each periodic task (cron syntax, UTC). The domain tasks claim only
 * the domains that are due, so running them every minute costs one indexed statement when nothing is.
 */
export const PERIODIC_JOBS = {
  purge_expired: "*/5 * * * *",
  recheck_domains: "* * * * *",
  // Every minute: a rotate-now asked through the SendingDomain annotation starts within a minute.
  rotate_dkim: "* * * * *",
  // Every minute: a complaint storm pauses its account within five minutes (issue 31, ADR 0052).
  guard_reputation: "* * * * *",
  // Hourly at :10, so the first run after 00:00 UTC reports the day just ended (RFC 8460 §4: daily reports);
  // the later runs retry failed sends and catch up on days a worker missed, at one statement when none is due.
  send_tls_reports: "10 * * * *",
} as const satisfies Record<PeriodicTask, string>;

/**
 * The crontab of the periodic tasks, built from `PERIODIC_JOBS` (no task named by a free string).
 * `?max=1`: one attempt per run; a run missed while no worker was up is not made up for.
 */
export const CRONTAB = Object.entries(PERIODIC_JOBS)
  .map(([task, schedule]) => `${schedule} ${task} ?max=1`)
  .join("\n");

/**
 * The payload of each task exactly as its SQL writer builds it (no `trace` key when there is no trace):
 * `jobs.int.test.ts` compares the payloads the SQL functions store with these.
 * @internal
 */
export const jobPayload = {
  deliver: (emailId: string, trace?: TraceCarrier | null): DeliverPayload =>
    trace ? { emailId, trace } : { emailId },
  webhookFanout: (eventIds: string[]): WebhookFanoutPayload => ({ eventIds }),
  webhookDeliver: (endpointId: string, streams: string[]): WebhookDeliverPayload => ({ endpointId, streams }),
  processReport: (reportId: string): ProcessReportPayload => ({ reportId }),
};

/** The key of a scheduled or retried email's `deliver` job: cancel removes it, reschedule replaces it. */
export const deliverJobKey = (emailId: string) => `deliver:${emailId}`;

/** A `deliver` job to add; `keyed` gives it `deliverJobKey` (scheduled sends and retries, which move). */
export interface DeliverJob {
  emailId: string;
  trace?: TraceCarrier | undefined;
  runAt?: Date | undefined;
  keyed: boolean;
}

/** Adds `deliver` jobs in the caller's transaction (a keyed one replaces the email's waiting job). */
export async function enqueueDeliver(db: Queryable, jobs: readonly DeliverJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db.query(
    `select mailroom_enqueue_deliver($1::uuid[], $2::timestamptz[], $3::jsonb[], $4::boolean[])`,
    [
      jobs.map((j) => j.emailId),
      jobs.map((j) => j.runAt ?? null),
      jobs.map((j) => (j.trace ? JSON.stringify(j.trace) : null)),
      jobs.map((j) => j.keyed),
    ],
  );
}

/** Removes an email's waiting keyed `deliver` job (a running one is left to find the email canceled). */
export async function removeDeliverJob(db: Queryable, emailId: string): Promise<void> {
  await db.query(`select graphile_worker.remove_job($1)`, [deliverJobKey(emailId)]);
}

/**
 * Wakes streams at `runAt` (default now) with one `webhook_deliver` job per stream, keyed
 * `webhook:<endpoint>:<stream>` so at most one wake-up waits per stream and a later call moves it.
 */
export async function enqueueStreamWakeups(
  db: Queryable,
  streams: readonly { endpointId: string; stream: string }[],
  runAt?: Date,
): Promise<void> {
  if (streams.length === 0) return;
  await db.query(
    `select mailroom_enqueue_webhook_deliver($1::uuid[], $2::jsonb[], $3::timestamptz[], $4::text[])`,
    [
      streams.map((s) => s.endpointId),
      streams.map((s) => JSON.stringify([s.stream])),
      streams.map(() => runAt ?? null),
      streams.map(() => "webhook"),
    ],
  );
}

/**
 * One unkeyed `webhook_deliver` job for several streams of one endpoint at `runAt`, as the fan-out adds them:
 * one job, however many streams (a safety net for streams a worker holds in memory, ADR 0027).
 */
export async function enqueueStreamBatch(
  db: Queryable,
  endpointId: string,
  streams: readonly string[],
  runAt: Date,
): Promise<void> {
  if (streams.length === 0) return;
  await db.query(
    `select mailroom_enqueue_webhook_deliver($1::uuid[], $2::jsonb[], $3::timestamptz[], $4::text[])`,
    [[endpointId], [JSON.stringify(streams)], [runAt], [null]],
  );
}

/** Adds a report's `process_report` job in the caller's transaction. */
export async function enqueueProcessReport(db: Queryable, reportId: string): Promise<void> {
  await db.query(`select mailroom_enqueue_process_report($1::uuid)`, [reportId]);
}
