/**
 * An in-process fake of the Kubernetes API server for operator tests: node:http on 127.0.0.1, spoken to by the
 * real @kubernetes/client-node through kubeConfig(). It serves our four custom resources (validated against
 * the generated CRDs in crds/) plus Secrets, Events and Leases, and any CRD a test installs (installCrd).
 * See README.md for what it models and what not.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { BUILT_IN_TYPES, type ResourceType } from "./resources.ts";
import {
  type CustomResourceDefinitionManifest,
  type CustomResourceType,
  compileCustomResourceDefinition,
  loadCustomResourceTypes,
} from "./schema.ts";
import { createRequestListener, type Hold, type RecordedRequest } from "./server.ts";
import { ObjectStore } from "./store.ts";
import { WatchHub } from "./watch.ts";

export type { CustomResourceDefinitionManifest, RecordedRequest };

/** A running fake. */
export interface KubeFake {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Every request served so far, oldest first. */
  readonly requests: readonly RecordedRequest[];
  /**
   * A fresh KubeConfig pointing at the fake (namespace "default"). Requests made through it are recorded
   * with `user` ("kube-fake" unless named), so a test can tell two clients apart and hold one's requests.
   */
  kubeConfig(user?: string): KubeConfig;
  /**
   * From now on, requests matching `matches` get no answer (the connection stays open) until the returned
   * function is called; then they are served. A hung API server, or a network partition of one client.
   */
  hold(matches: (request: RecordedRequest) => boolean): () => void;
  /** Sends a BOOKMARK event on every open watch that asked for bookmarks; returns how many. */
  bookmark(): number;
  /** The latest resourceVersion issued. */
  resourceVersion(): number;
  /** Drops the watch history: watching (or an Exact list) from any resourceVersion issued so far answers 410. */
  compact(): number;
  /** Ends open watch streams, cleanly or by destroying the socket; returns how many. */
  dropWatches(opts?: { abrupt?: boolean }): number;
  /** Watch streams currently open. */
  openWatches(): number;
  /**
   * Serves another CRD's kinds from now on (as once a CRD is created and Established), validated against
   * its schema like ours. Throws when a kind of it is already served.
   */
  installCrd(crd: CustomResourceDefinitionManifest): void;
  /** Stops serving a CRD installed with installCrd, deleting its objects: its paths answer 404 again. */
  uninstallCrd(name: string): void;
  /** Ends every watch and connection and stops listening. */
  close(): Promise<void>;
}

/** Where the generated CRDs live. */
const CRDS_DIR = fileURLToPath(new URL("../../../crds/", import.meta.url));
const TOKEN = "kube-fake-token";

/** Starts a fake API server on an ephemeral loopback port. */
const servedType = (c: CustomResourceType): ResourceType => ({
  group: c.group,
  version: c.version,
  plural: c.plural,
  kind: c.kind,
  listKind: c.listKind,
  clusterScoped: c.clusterScoped,
  custom: c,
});

export async function startKubeFake(opts: { crdDir?: string } = {}): Promise<KubeFake> {
  const custom = loadCustomResourceTypes(opts.crdDir ?? CRDS_DIR).map(servedType);
  const store = new ObjectStore();
  const watches = new WatchHub();
  const requests: RecordedRequest[] = [];
  const holds = new Set<Hold>();
  // Read by the router on every request, so installCrd/uninstallCrd take effect at once.
  const types: ResourceType[] = [...BUILT_IN_TYPES, ...custom];
  const installed = new Map<string, ResourceType[]>();
  const server: Server = createServer(
    createRequestListener({ store, watches, types, token: TOKEN, requests, holds }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    kubeConfig(user) {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "kube-fake", server: url, skipTLSVerify: true }],
        users: [{ name: "kube-fake", token: user ? `${TOKEN}.${user}` : TOKEN }],
        contexts: [{ name: "kube-fake", cluster: "kube-fake", user: "kube-fake", namespace: "default" }],
        currentContext: "kube-fake",
      });
      return kc;
    },
    resourceVersion: () => store.resourceVersion,
    compact: () => store.compact(),
    dropWatches: (o) => watches.drop(o),
    bookmark: () => watches.bookmark(),
    hold(matches) {
      const hold: Hold = { matches, waiting: [], released: false };
      holds.add(hold);
      return () => {
        hold.released = true;
        holds.delete(hold);
        for (const resume of hold.waiting.splice(0)) resume();
      };
    },
    openWatches: () => watches.count,
    installCrd(crd) {
      const added = compileCustomResourceDefinition(crd).map(servedType);
      for (const t of added) {
        if (types.some((u) => u.group === t.group && u.version === t.version && u.plural === t.plural)) {
          throw new Error(`kube-fake already serves ${t.plural}.${t.group}/${t.version}`);
        }
      }
      types.push(...added);
      installed.set(crd.metadata.name, added);
    },
    uninstallCrd(name) {
      const removed = installed.get(name);
      if (!removed) throw new Error(`kube-fake has no installed CustomResourceDefinition ${name}`);
      installed.delete(name);
      for (const t of removed) {
        store.deleteAll(t);
        types.splice(types.indexOf(t), 1);
      }
    },
    async close() {
      // Held requests are let go; their connections are closed below.
      for (const hold of holds) {
        hold.released = true;
        for (const resume of hold.waiting.splice(0)) resume();
      }
      holds.clear();
      watches.drop({ abrupt: true });
      const closed = new Promise<void>((resolve, reject) =>
        server.close((err) => (err ? reject(err) : resolve())),
      );
      server.closeAllConnections();
      await closed;
    },
  };
}
