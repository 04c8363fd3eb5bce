import type { JobPayloads } from "@mailroom/core/jobs";

// graphile-worker types each task's payload from this global interface. It is filled from core's one
// declaration of the tasks (core/src/jobs), which the SQL writers of the jobs match, rather than by each
// task file, so a consumer cannot drift from its producer.
declare global {
  namespace GraphileWorker {
    interface Tasks extends JobPayloads {}
  }
}
