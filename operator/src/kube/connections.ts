/**
 * One connection pool for all of the operator's requests. client-node 2 builds a new undici Agent for every
 * request (`KubeConfig.applySecurityAuthentication` → `createDispatcher`, called by each API call and each
 * watch), and every Agent opens a TLS connection of its own (HTTP/2 by ALPN) that nothing closes: N requests,
 * N connections left open to the API server (kubernetes-client/javascript#2893 reported it for 1.x's
 * https.Agent). ADR 0076.
 *
 * And over HTTP/1.1, not HTTP/2: undici 8 offers h2 by ALPN by default, and its HTTP/2 client's teardown can
 * raise an error nobody can handle (an uncaught "socket idle timeout" from its idle-session reaper ended a
 * contract-suite run on the real API server; nodejs/undici#5525 and #5586 are the same family). HTTP/1.1 keeps
 * one kept-alive connection per request in flight (each watch holds one), which undici's h1 client has reaped
 * and reused for years. ADR 0076's amendment.
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

type DispatcherOptions = ReturnType<KubeConfig["createDispatcherOptions"]>;

/**
 * client-node's options for its dispatcher, offering HTTP/1.1 alone: undici's connector takes `allowH2` from
 * the connect options (its ALPN list). A SOCKS proxy's connector offers no ALPN, so HTTP/1.1 already.
 */
function http1Only(options: DispatcherOptions): DispatcherOptions {
  // undici's own option, not in the TLS options' type client-node declares.
  const http1 = { allowH2: false };
  if (options.type === "agent") return { ...options, connect: { ...options.connect, ...http1 } };
  if (options.type === "proxy") return { ...options, requestTls: { ...options.requestTls, ...http1 } };
  return options;
}

/**
 * `kc` with every request sharing one dispatcher for as long as its TLS options (CA, client certificate, server
 * name, proxy) stay the same; when they change (a rotated certificate re-read from its file), the next request
 * gets a new dispatcher and the old one closes once its requests (a watch, say) have ended. Everything else is
 * `kc`'s own: the returned object inherits from it.
 */
export function sharingConnections(kc: KubeConfig): KubeConfig {
  const shared = Object.create(kc) as KubeConfig;
  // client-node's own createDispatcher, called on `shared`: it builds from `shared.createDispatcherOptions`.
  const build = (kc as unknown as DispatcherFactory).createDispatcher.bind(shared);
  let current: { key: string; dispatcher: Dispatcher | undefined } | undefined;
  shared.createDispatcherOptions = (cluster, agentOptions) =>
    http1Only(kc.createDispatcherOptions(cluster, agentOptions));
  const factory: DispatcherFactory = shared as unknown as DispatcherFactory;
  factory.createDispatcher = (cluster, agentOptions) => {
    const options = shared.createDispatcherOptions(cluster, agentOptions);
    const key = createHash("sha256").update(JSON.stringify(options)).digest("base64");
    if (current?.key === key) return current.dispatcher;
    current?.dispatcher?.close().catch(() => undefined);
    current = { key, dispatcher: build(cluster, agentOptions) };
    return current.dispatcher;
  };
  return shared;
}
