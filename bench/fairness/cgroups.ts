/**
 * CPU groups as the kubelet makes them (bench/fairness/main.ts, BENCH_FAIRNESS_CGROUPS=1): on a node under
 * contention each pod gets CPU in proportion to its `resources.requests.cpu`, through its cgroup's `cpu.shares`
 * (millicores × 1024 / 1000, at least 2: the kubelet's MilliCPUToShares), under a parent (`kubepods`) whose
 * shares are the node's CPUs. This module makes exactly that on this machine's cgroup v1 `cpu` controller: a
 * parent with the machine's CPUs' shares and one group per component, each with the shares the chart's default
 * requests give it (charts/mailroom/values.yaml, read here, so the bench follows the chart). Components that
 * are not the chart's pods are given a whole CPU's weight: the SMTP sink (the receivers, outside the cluster)
 * and Postgres (the chart's default database is external, `database.url`; with `postgresql.cloudnative`
 * enabled its `resources` decide). The groups are removed afterwards, also on
 * Ctrl-C or failure (the bench's cleanup), and every process put back in the root group first.
 */
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { parse } from "yaml";

const CPU_ROOT = "/sys/fs/cgroup/cpu";

export const ROLES = ["api", "postgres", "worker", "worker-reserved", "sink"] as const;
export type Role = (typeof ROLES)[number];

/** The kubelet's MilliCPUToShares. */
export const sharesOf = (millicores: number) => Math.max(2, Math.floor((millicores * 1024) / 1000));

/** A Kubernetes CPU quantity ("100m", "0.5", 1) in millicores; undefined when absent. */
export function millicoresOf(cpu: unknown): number | undefined {
  if (typeof cpu === "number") return cpu * 1000;
  if (typeof cpu !== "string" || cpu === "") return undefined;
  const value = cpu.endsWith("m") ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
  if (!Number.isFinite(value)) throw new Error(`not a CPU quantity: ${cpu}`);
  return value;
}

export interface RoleShare {
  millicores: number;
  shares: number;
  /** Where the figure comes from. */
  source: string;
}

const OUTSIDE = 1000;

type Values = Record<string, Record<string, unknown> | undefined>;
const get = (object: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined),
    object,
  );

/** Each component's CPU request by the chart's default values. */
export async function chartShares(
  valuesFile = new URL("../../charts/mailroom/values.yaml", import.meta.url),
): Promise<Record<Role, RoleShare>> {
  const values = parse(await readFile(valuesFile, "utf8")) as Values;
  const request = (path: string[], source: string, fallback?: string): RoleShare => {
    const millicores = millicoresOf(get(values, ...path, "resources", "requests", "cpu"));
    if (millicores === undefined) {
      if (!fallback)
        throw new Error(`charts/mailroom/values.yaml has no ${path.join(".")}.resources.requests.cpu`);
      return { millicores: OUTSIDE, shares: sharesOf(OUTSIDE), source: fallback };
    }
    return { millicores, shares: sharesOf(millicores), source };
  };
  // The chart's default database is external (`database.url`); CloudNativePG's requests count only when it is on.
  const inCluster = get(values, "postgresql", "cloudnative", "enabled") === true;
  return {
    api: request(["api"], "api.resources (the accepts; the load generator rides along)"),
    worker: request(["worker"], "worker.resources"),
    "worker-reserved": request(["worker", "reservedLane"], "worker.reservedLane.resources"),
    postgres: inCluster
      ? request(["postgresql", "cloudnative"], "postgresql.cloudnative.resources")
      : {
          millicores: OUTSIDE,
          shares: sharesOf(OUTSIDE),
          source: "outside the cluster (the chart's default database.url): a whole CPU's weight",
        },
    sink: {
      millicores: OUTSIDE,
      shares: sharesOf(OUTSIDE),
      source: "the receivers, outside the cluster: a whole CPU's weight",
    },
  };
}

/** The embedded Postgres's postmaster under the bench's directory (support.ts's `openBenchDatabase`). */
export async function postmasterOf(benchDir: string): Promise<number> {
  const text = await readFile(`${benchDir}/postgres/postmaster.pid`, "utf8");
  return Number(text.split("\n")[0]);
}

/** Every process whose parent is `pid`, and theirs (Postgres's backends under its postmaster). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!Number.isFinite(ppid)) continue;
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

export interface CpuGroups {
  shares: Record<Role, RoleShare>;
  /**
   * Puts each process (and, for Postgres, every process under its postmaster) in its role's group, or with
   * `inGroups` false back in the root group, as every process on this machine runs without the bench.
   */
  place(processes: ReadonlyArray<{ pid: number | undefined; role: Role }>, inGroups: boolean): Promise<void>;
}

/** Makes the groups; their removal is registered with `onCleanup`. Needs root and cgroup v1's `cpu`. */
export async function openCpuGroups(onCleanup: (step: () => Promise<void>) => void): Promise<CpuGroups> {
  const shares = await chartShares();
  const parent = `${CPU_ROOT}/mailroom-bench-fairness-${process.pid}`;
  try {
    await mkdir(parent);
  } catch (error) {
    throw new Error(
      `BENCH_FAIRNESS_CGROUPS=1 needs cgroup v1's cpu controller at ${CPU_ROOT}, writable (root): ${String(error)}`,
    );
  }
  const groupOf = (role: Role) => `${parent}/${role}`;
  onCleanup(async () => {
    for (const role of ROLES) {
      const procs = await readFile(`${groupOf(role)}/cgroup.procs`, "utf8").catch(() => "");
      for (const pid of procs.split("\n").filter(Boolean)) {
        await writeFile(`${CPU_ROOT}/cgroup.procs`, pid).catch(() => undefined);
      }
      await rmdir(groupOf(role)).catch((error: unknown) => console.error(`cgroup ${role}:`, error));
    }
    await rmdir(parent).catch((error: unknown) => console.error("cgroup parent:", error));
  });
  // kubepods: the node's allocatable CPUs (here: all of the machine's).
  await writeFile(`${parent}/cpu.shares`, String(sharesOf(os.availableParallelism() * 1000)));
  for (const role of ROLES) {
    await mkdir(groupOf(role));
    await writeFile(`${groupOf(role)}/cpu.shares`, String(shares[role].shares));
  }
  return {
    shares,
    place: async (processes, inGroups) => {
      for (const { pid, role } of processes) {
        if (pid === undefined) continue;
        const target = inGroups ? `${groupOf(role)}/cgroup.procs` : `${CPU_ROOT}/cgroup.procs`;
        const all = role === "postgres" ? [pid, ...(await descendants(pid))] : [pid];
        // A process may end between the listing and the move (a backend closing): nothing to move then.
        for (const p of all) await writeFile(target, String(p)).catch(() => undefined);
      }
    },
  };
}
