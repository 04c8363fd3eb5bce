/**
 * The in-cluster operator: leader election gates everything; the leader runs, per kind, a supervised
 * informer feeding a per-object work queue whose handler is the kind's controller, plus a periodic resync
 * that requeues every object so drift in Postgres is found without any Kubernetes change.
 */
import type { Registry } from "prom-client";
import type { ReconcileContext } from "../controllers/context.ts";
import type { KindController } from "../controllers/kind-controller.ts";
import { syncObject } from "../controllers/sync.ts";
import type { MailroomKind, MailroomKinds } from "../crds/index.ts";
import type { Kube } from "../kube/index.ts";
import type { BackoffPolicy } from "./backoff.ts";
import { createConditionGauge } from "./condition-gauge.ts";
import { type Informer, startInformer } from "./informer.ts";
import { startLeaderElection } from "./leader-election.ts";
import { createOperatorMetrics } from "./metrics.ts";
import { createWorkQueue, type WorkQueue } from "./work-queue.ts";

/** One controller per kind; a kind left out is not reconciled. */
export type ControllerSet = { [K in MailroomKind]?: KindController<K> };

export interface OperatorOptions {
  kube: Kube;
  context: ReconcileContext;
  controllers: ControllerSet;
  registry: Registry;
  /** This replica's name in the Lease (the pod name). */
  identity: string;
  leaseNamespace: string;
  leaseName?: string;
  /**
   * Watch these namespaces (an informer per kind in each); all namespaces when undefined. Cluster-scoped kinds
   * (ClusterSendingDomain) are reconciled only when undefined.
   */
  namespaces?: readonly string[];
  resyncMs?: number;
  leaderElection?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  queue?: { concurrency?: number; retry?: BackoffPolicy };
  informerBackoff?: BackoffPolicy;
  /**
   * Called when the Lease is lost (not on stop()). `mailroom operator` exits, as controller-runtime does:
   * reconciles in flight must not go on once a standby may lead.
   */
  onLostLease?: () => void;
}

export interface RunningOperator {
  isLeader(): boolean;
  /** For /healthz: false once the leader has not renewed its Lease for a lease duration. */
  healthy(): boolean;
  /** Resolves once every informer has listed and every queue is empty (for tests and readiness). */
  settled(): Promise<void>;
  /** Stops reconciling; see LeaderElection.stop for `release`. */
  stop(options?: { release?: boolean }): Promise<void>;
}

interface KindRuntime {
  informers: Informer<unknown>[];
  queue: WorkQueue;
}

export function startOperator(options: OperatorOptions): RunningOperator {
  const metrics = createOperatorMetrics(options.registry);
  const leaseName = options.leaseName ?? "mailroom-operator";
  // The installation's identity: its Lease, shared by its replicas and unique per release.
  const instance = `${options.leaseNamespace}/${leaseName}`;
  const { log } = options.context;
  const conditions = createConditionGauge(metrics.resourceCondition, instance);
  let runtimes: KindRuntime[] = [];
  let resync: NodeJS.Timeout | undefined;

  function startKind<K extends MailroomKind>(controller: KindController<K>): KindRuntime {
    const client = options.kube.customResources[controller.kind];
    // Filled right below; the queue's handler only runs after an informer delivers a key. A key names its
    // namespace, so at most one informer holds it.
    const informers: Informer<MailroomKinds[K]>[] = [];
    const queue = createWorkQueue({
      name: controller.kind,
      log,
      metrics,
      ...options.queue,
      async handle(key) {
        const object = informers.map((i) => i.get(key)).find((o) => o !== undefined);
        if (!object) return undefined;
        return syncObject(options.context, client, controller, object, instance);
      },
    });
    for (const namespace of options.namespaces ?? [undefined]) {
      informers.push(
        startInformer({
          kind: controller.kind,
          log,
          metrics,
          ...(options.informerBackoff ? { backoff: options.informerBackoff } : {}),
          list: () => client.list(namespace),
          watch: (resourceVersion, onEvent) =>
            client.watch({ resourceVersion, ...(namespace ? { namespace } : {}) }, onEvent),
          onChange: (key, object) => {
            conditions.observe(controller.kind, key, object);
            if (object) queue.add(key);
          },
        }),
      );
    }
    return { informers, queue };
  }

  async function startControllers() {
    metrics.leader.set(1);
    const set = options.controllers;
    runtimes = [
      set.ApiKey && startKind(set.ApiKey),
      set.SendingDomain && startKind(set.SendingDomain),
      set.Template && startKind(set.Template),
      set.WebhookEndpoint && startKind(set.WebhookEndpoint),
      set.AccountPolicy && startKind(set.AccountPolicy),
      // Cluster-scoped, so only for an installation that watches the whole cluster (the chart grants the
      // ClusterRole only then): one limited to namespaces may not read the others' namespaces or domains.
      options.namespaces ? undefined : set.ClusterSendingDomain && startKind(set.ClusterSendingDomain),
    ].filter((r): r is KindRuntime => r !== undefined);
    resync = setInterval(
      () => {
        for (const { informers, queue } of runtimes) {
          for (const informer of informers) for (const key of informer.keys()) queue.add(key);
        }
      },
      options.resyncMs ?? 10 * 60_000,
    );
  }

  async function stopControllers() {
    clearInterval(resync);
    resync = undefined;
    const stopping = runtimes;
    runtimes = [];
    await Promise.all(stopping.flatMap((r) => r.informers.map((i) => i.stop())));
    await Promise.all(stopping.map((r) => r.queue.shutdown()));
    conditions.reset();
    metrics.leader.set(0);
  }

  const election = startLeaderElection({
    leases: options.kube.leases,
    namespace: options.leaseNamespace,
    name: leaseName,
    identity: options.identity,
    ...options.leaderElection,
    onStartedLeading: startControllers,
    onStoppedLeading: stopControllers,
    ...(options.onLostLease ? { onLostLease: options.onLostLease } : {}),
    log,
  });

  return {
    isLeader: () => election.isLeader(),
    healthy: () => election.healthy(),
    async settled() {
      await Promise.all(runtimes.flatMap((r) => r.informers.map((i) => i.synced)));
      await Promise.all(runtimes.map((r) => r.queue.idle()));
    },
    stop: (stopOptions) => election.stop(stopOptions),
  };
}
