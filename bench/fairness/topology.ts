/**
 * The worker processes a phase of bench/fairness/main.ts runs on, each a `mailroom worker` as bench/delivery's
 * `worker.ts` forks it (MAILROOM_WORKER_LANES picks its lanes, as the chart's Deployments do):
 * - `separate`: the main worker with the delivery and background lanes, and a second process with only the
 *   reserved lane (the chart's `worker.reservedLane.separate`): its deliveries share no event loop with the
 *   flood's;
 * - `in-process`: one worker with all three lanes (ADR 0064 as first shipped);
 * - `priority-only`: one worker without the reserved lane (ADR 0053's design).
 */
import type { DeliveryRun, Setup } from "../delivery/setup.ts";
import type { Sink } from "../delivery/sink-control.ts";
import { startMailroomWorker } from "../delivery/throughput.ts";
import type { Role } from "./cgroups.ts";

export type Topology = "separate" | "in-process" | "priority-only";

export interface Workers {
  topology: Topology;
  /** The main worker's delivery slots. */
  concurrency: number;
  /** Each worker process and the pod it stands for (cgroups.ts). */
  processes: Array<{ pid: number | undefined; role: Role }>;
  stop(): Promise<void>;
}

const ENV: Record<Topology, Array<Record<string, string>>> = {
  separate: [{ MAILROOM_WORKER_LANES: "delivery,background" }, { MAILROOM_WORKER_LANES: "reserved" }],
  "in-process": [{}],
  "priority-only": [{ MAILROOM_WORKER_RESERVED_CONCURRENCY: "0" }],
};

export async function startWorkers(
  run: DeliveryRun,
  setup: Setup,
  sink: Sink,
  databaseUrl: string,
  topology: Topology,
  /** Variables for every worker process of this topology (the step trace's, steps.ts). */
  extraEnv: Record<string, string> = {},
): Promise<Workers> {
  const children: Awaited<ReturnType<typeof startMailroomWorker>>[] = [];
  for (const env of ENV[topology]) {
    children.push(await startMailroomWorker(run, setup, sink, databaseUrl, { ...extraEnv, ...env }));
  }
  return {
    topology,
    concurrency: children[0]?.concurrency ?? 0,
    processes: children.map(({ child }, i) => ({
      pid: child.pid,
      role: topology === "separate" && i === 1 ? "worker-reserved" : "worker",
    })),
    stop: async () => {
      for (const { child } of children) child.send({ type: "stop" });
      await Promise.all(children.map(({ child }) => child.stop(60_000)));
    },
  };
}
