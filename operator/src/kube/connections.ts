/**
 * One connection pool for all of the operator's requests. client-node 2 builds a new undici Agent for every
 * request (`KubeConfig.applySecurityAuthentication` → `createDispatcher`, called by each API call and each
 * watch), and every Agent opens a TLS connection of its own (HTTP/2 by ALPN) that nothing closes: N requests,
 * N connections left open to the API server (kubernetes-client/javascript#2893 reported it for 1.x's
 * https.Agent). ADR 0076.
 */
import { createHash } from "node:crypto";
import type { AgentOptions } from "node:https";
import type { Cluster, KubeConfig } from "@kubernetes/client-node";

/** The undici dispatcher client-node builds (an Agent, a ProxyAgent), or none (plain HTTP, no TLS options). */
interface Dispatcher {
  close(): Promise<void>;
}

/** What `applySecurityAuthentication` calls on its KubeConfig; private in client-node's types. */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, agentOptions: AgentOptions): Dispatcher | undefined;
}

/**
 * `kc` with every request sharing one dispatcher for as long as its TLS options (CA, client certificate, server
 * name, proxy) stay the same; when they change (a rotated certificate re-read from its file), the next request
 * gets a new dispatcher and the old one closes once its requests (a watch, say) have ended. Everything else is
 * `kc`'s own: the returned object inherits from it.
 */
export function sharingConnections(kc: KubeConfig): KubeConfig {
  const build = (kc as unknown as DispatcherFactory).createDispatcher.bind(kc);
  let current: { key: string; dispatcher: Dispatcher | undefined } | undefined;
  const shared = Object.create(kc) as KubeConfig;
  const factory: DispatcherFactory = shared as unknown as DispatcherFactory;
  factory.createDispatcher = (cluster, agentOptions) => {
    const options = kc.createDispatcherOptions(cluster, agentOptions);
    const key = createHash("sha256").update(JSON.stringify(options)).digest("base64");
    if (current?.key === key) return current.dispatcher;
    current?.dispatcher?.close().catch(() => undefined);
    current = { key, dispatcher: build(cluster, agentOptions) };
    return current.dispatcher;
  };
  return shared;
}
