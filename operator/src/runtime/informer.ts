/**
 * A supervised list+watch cache of one kind. client-node's own informer stops for good after an abrupt
 * error, so this one is a loop that cannot die while running: a watch that ends cleanly resumes from the
 * last resourceVersion seen; a 410 Expired relists at once; any other failure (a reset socket, a refused
 * connection, a 5xx) relists after exponential backoff. Every relist diffs against the cache, so objects
 * deleted while the watch was down are reported as deletions.
 */
import type { OperatorLogger } from "../controllers/context.ts";
import { isKubeError, type ListResult, type WatchEvent, type WatchHandle } from "../kube/index.ts";
import { type BackoffPolicy, backoffDelay, sleep } from "./backoff.ts";
import type { OperatorMetrics } from "./metrics.ts";

interface Meta {
  metadata: {
    namespace?: string | undefined;
    name?: string | undefined;
    resourceVersion?: string | undefined;
  };
}

export interface InformerOptions<T extends Meta> {
  kind: string;
  list(): Promise<ListResult<T>>;
  watch(resourceVersion: string, onEvent: (event: WatchEvent<T>) => void): Promise<WatchHandle>;
  /** Called for every change; `object` is undefined when the object is gone. */
  onChange(key: string, object: T | undefined): void;
  backoff?: BackoffPolicy;
  metrics?: OperatorMetrics;
  log: OperatorLogger;
}

export interface Informer<T> {
  get(key: string): T | undefined;
  keys(): string[];
  /** Resolves after the first successful list. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

/** `namespace/name`, the key objects are queued and cached under. */
export function objectKey(object: Meta): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`;
}

export function startInformer<T extends Meta>(options: InformerOptions<T>): Informer<T> {
  const backoff = options.backoff ?? { baseMs: 500, maxMs: 30_000 };
  const cache = new Map<string, T>();
  const abort = new AbortController();
  let handle: WatchHandle | undefined;
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });

  function apply(type: WatchEvent<T>["type"], object: T) {
    const key = objectKey(object);
    if (type === "BOOKMARK") return;
    if (type === "DELETED") {
      cache.delete(key);
      options.onChange(key, undefined);
    } else {
      cache.set(key, object);
      options.onChange(key, object);
    }
  }

  async function relist(): Promise<string> {
    const list = await options.list();
    const seen = new Set<string>();
    for (const object of list.items) {
      const key = objectKey(object);
      seen.add(key);
      const cached = cache.get(key);
      cache.set(key, object);
      if (cached?.metadata.resourceVersion !== object.metadata.resourceVersion) options.onChange(key, object);
    }
    for (const key of [...cache.keys()]) {
      if (seen.has(key)) continue;
      cache.delete(key);
      options.onChange(key, undefined);
    }
    markSynced();
    return list.resourceVersion;
  }

  async function watchFrom(start: string): Promise<void> {
    let resourceVersion = start;
    while (!abort.signal.aborted) {
      handle = await options.watch(resourceVersion, (event) => {
        resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
        apply(event.type, event.object);
      });
      if (abort.signal.aborted) handle.stop();
      // Resolves on a clean end (the server's watch timeout): resume where we were.
      await handle.done;
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        const resourceVersion = await relist();
        failures = 0;
        await watchFrom(resourceVersion);
      } catch (error) {
        if (abort.signal.aborted) break;
        if (isKubeError(error, 410)) {
          options.metrics?.informerRestarts.inc({ kind: options.kind, reason: "expired" });
          options.log.info({ kind: options.kind }, "watch expired (410); relisting");
          continue;
        }
        failures += 1;
        options.metrics?.informerRestarts.inc({ kind: options.kind, reason: "error" });
        const wait = backoffDelay(backoff, failures);
        options.log.warn({ err: error, kind: options.kind, retryInMs: wait }, "watch failed; relisting");
        await sleep(wait, abort.signal);
      }
    }
  }

  const running = run();
  return {
    get: (key) => cache.get(key),
    keys: () => [...cache.keys()],
    synced,
    async stop() {
      abort.abort();
      handle?.stop();
      await running;
    },
  };
}
