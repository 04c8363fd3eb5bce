import os from "node:os";
import { KubeConfig } from "@kubernetes/client-node";
import { endPool, migrate } from "@mailroom/core/db";
import {
  createLogger,
  createProgramRegistry,
  observePool,
  startInternalServer,
} from "@mailroom/core/telemetry";
import {
  ALL_CONTROLLERS,
  applyManifests,
  createKube,
  createKubeDnsEndpointStore,
  createKubeEventRecorder,
  createKubeNamespaceLister,
  createKubeSecretStore,
  startOperator,
} from "@mailroom/operator";
import { loadProgramConfig } from "../config.ts";
import { openDatabase, openPool } from "../database.ts";
import { printTable, say, step } from "../output.ts";
import { requireKek } from "../programs.ts";
import { stopOnSignal } from "./lifecycle.ts";
import { localKek } from "./run-action.ts";

/** `mailroom operator`: reconciles the cluster's Mailroom resources into Postgres while it holds the Lease. */
export async function runOperator(): Promise<void> {
  const config = loadProgramConfig();
  const logger = createLogger({ level: config.log.level, name: "mailroom-operator" });
  const kek = await requireKek(config);
  const db = await openDatabase(config, step);
  const pool = openPool(config, db.url, "mailroom-operator", (e) =>
    logger.warn({ err: e }, "idle client error"),
  );
  const kc = new KubeConfig();
  // In a pod: the service account; elsewhere: KUBECONFIG or ~/.kube/config.
  kc.loadFromDefault();
  const kube = createKube(kc);
  const registry = createProgramRegistry("operator");
  observePool(registry, pool, config.database.poolSize);
  const running = startOperator({
    kube,
    context: {
      pool,
      kek,
      secrets: createKubeSecretStore(kube),
      events: createKubeEventRecorder(kube, logger),
      dnsEndpoints: createKubeDnsEndpointStore(kube),
      namespaces: createKubeNamespaceLister(kube),
      log: logger,
      now: () => new Date(),
      ownerReferences: config.operator.ownerReferences,
      dnsRecords: config.dnsRecords,
    },
    controllers: ALL_CONTROLLERS,
    registry,
    identity: config.operator.identity ?? os.hostname(),
    leaseName: config.operator.leaseName,
    leaseNamespace: config.operator.leaseNamespace,
    ...(config.operator.namespaces?.length ? { namespaces: config.operator.namespaces } : {}),
    // As controller-runtime's manager: a replica that lost its Lease exits, which also ends the reconciles it
    // still had in flight; the Deployment restarts it as a standby.
    onLostLease: () => {
      logger.error({ lease: config.operator.leaseName }, "leader election lost; exiting");
      process.exit(1);
    },
  });
  const internal = await startInternalServer({
    host: config.internalHost,
    port: config.operator.internalPort,
    registry,
    ready: async () => true,
    healthy: () => running.healthy(),
  });
  say(
    `Operator   watching ${config.operator.namespaces?.join(", ") || "all namespaces"}; lease ${config.operator.leaseNamespace}/${config.operator.leaseName}`,
  );
  stopOnSignal([
    () => running.stop({ release: true }),
    () => internal.close(),
    () => endPool(pool),
    () => db.stop(),
  ]);
}

/** `mailroom apply -f`: the operator's reconcile code on YAML files, against the local database. */
export async function runApply(paths: string[]): Promise<void> {
  const config = loadProgramConfig();
  const logger = createLogger({
    level: config.log.level === "info" ? "warn" : config.log.level,
    name: "mailroom-apply",
    // Warnings (e.g. an Event saying nothing was published) on stderr: stdout is the result table.
    destination: process.stderr,
  });
  const kek = await localKek(config);
  const db = await openDatabase(config, step);
  const pool = openPool(config, db.url, "mailroom-apply");
  try {
    await migrate({ url: db.url });
    const applied = await applyManifests(
      { pool, kek, dataDir: config.dataDir, log: logger, dnsRecords: config.dnsRecords },
      paths,
    );
    if (applied.length === 0) say("no Mailroom resources (apiVersion mailroom.dev/v1alpha1) in those files");
    printTable(
      ["KIND", "NAMESPACE", "NAME", "READY", "REASON"],
      applied.map((r) => [r.kind, r.namespace, r.name, r.ready.status, r.ready.reason]),
    );
    say(`generated keys and secrets are under ${config.dataDir}/secrets/`);
  } finally {
    await endPool(pool);
    await db.stop();
  }
}
