/**
 * Test harness of the controller contract suite: a Kubernetes API (the in-process fake, or the cluster of
 * `kubeconfigPath` when given) plus a real Postgres database, a capturing logger and the reconcile context.
 * Imported by tests only.
 */
import { randomBytes } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import { generateKek } from "@mailroom/core/domains";
import { createLogger } from "@mailroom/core/telemetry";
import { Registry } from "prom-client";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { type KubeFake, startKubeFake } from "../../../test/support/kube-fake/index.ts";
import type { OperatorLogger, ReconcileContext } from "../controllers/context.ts";
import { ALL_CONTROLLERS } from "../controllers/index.ts";
import { createKube, type Kube, type KubeOptions } from "../kube/index.ts";
import {
  createKubeEventRecorder,
  createKubeNamespaceLister,
  createKubeSecretStore,
} from "../runtime/kube-adapters.ts";
import { createKubeDnsEndpointStore } from "../runtime/kube-dns-endpoints.ts";
import { type OperatorOptions, type RunningOperator, startOperator } from "../runtime/operator.ts";

export interface Harness {
  kube: Kube;
  /** Present when running against the fake: compact(), dropWatches() and friends. */
  fake: KubeFake | undefined;
  db: TestDatabase;
  context: ReconcileContext;
  /** Every log line as the operator's pino logger wrote it, so a test can prove a key never reached the logs. */
  logs: string[];
  /**
   * Another client of the same API server, for a second operator: on the fake its requests carry `user`
   * (so fake.hold() can stall them); on a cluster it is an equivalent client.
   */
  kubeAs(user: string): Kube;
  /** A namespace for this test: fresh per harness on the fake, the configured one on a cluster. */
  namespace: string;
  /** A unique resource name, so tests can share a real cluster's namespace. */
  name(prefix: string): string;
  startOperator(overrides?: Partial<OperatorOptions>): RunningOperator & { registry: Registry };
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** KUBECONFIG of a real cluster with the CRDs installed; the fake otherwise. */
  kubeconfigPath?: string | undefined;
  /** Namespace to use on a real cluster (it must exist). */
  clusterNamespace?: string | undefined;
  ownerReferences?: boolean;
  /** How long the operator believes external-dns's CRD absent before asking discovery again. */
  dnsDiscoveryAbsentRecheckMs?: number;
  /** Watch tuning (the inactivity timer, say). */
  kubeOptions?: KubeOptions;
}

/** The operator's own logger (pino, as `mailroom operator` builds it), writing its lines into `lines`. */
function capturingLogger(lines: string[]): OperatorLogger {
  return createLogger({
    level: "info",
    name: "mailroom-operator",
    destination: { write: (line: string) => void lines.push(line.trimEnd()) },
  });
}

export async function openHarness(options: HarnessOptions = {}): Promise<Harness> {
  let fake: KubeFake | undefined;
  let kc: KubeConfig;
  if (options.kubeconfigPath) {
    kc = new KubeConfig();
    kc.loadFromFile(options.kubeconfigPath);
  } else {
    fake = await startKubeFake();
    kc = fake.kubeConfig();
  }
  const kube = createKube(kc, options.kubeOptions);
  const db = await createTestDatabase();
  const logs: string[] = [];
  const log = capturingLogger(logs);
  const suffix = randomBytes(3).toString("hex");
  const namespace = fake ? `ns-${suffix}` : (options.clusterNamespace ?? "mailroom-contract");
  const context: ReconcileContext = {
    pool: db.pool,
    kek: generateKek(),
    secrets: createKubeSecretStore(kube),
    events: createKubeEventRecorder(kube, log),
    dnsEndpoints: createKubeDnsEndpointStore(
      kube,
      options.dnsDiscoveryAbsentRecheckMs === undefined
        ? {}
        : { absentRecheckMs: options.dnsDiscoveryAbsentRecheckMs },
    ),
    namespaces: createKubeNamespaceLister(kube),
    log,
    now: () => new Date(),
    ownerReferences: options.ownerReferences ?? false,
  };
  const operators: RunningOperator[] = [];
  let counter = 0;
  return {
    kube,
    fake,
    db,
    context,
    logs,
    kubeAs: (user) => createKube(fake ? fake.kubeConfig(user) : kc, options.kubeOptions),
    namespace,
    name: (prefix) => `${prefix}-${suffix}-${++counter}`,
    startOperator(overrides = {}) {
      const registry = new Registry();
      const running = startOperator({
        kube,
        context,
        controllers: ALL_CONTROLLERS,
        registry,
        identity: `operator-${operators.length}`,
        leaseNamespace: namespace,
        leaseName: `mailroom-operator-${suffix}`,
        resyncMs: 60_000,
        leaderElection: { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 },
        queue: { concurrency: 2, retry: { baseMs: 50, maxMs: 1_000 } },
        informerBackoff: { baseMs: 50, maxMs: 500 },
        ...overrides,
      });
      operators.push(running);
      return Object.assign(running, { registry });
    },
    async close() {
      await Promise.all(operators.map((o) => o.stop()));
      await fake?.close();
      await db.drop();
    },
  };
}
