/**
 * A supervised list+watch cache of one kind. client-node's own informer stops for good after an abrupt
 * error, so this one is a loop that cannot die while running: a watch that ends cleanly resumes from the
 * last resourceVersion seen; a 410 Expired relists at once; any other failure (a reset socket, a refused
 * connection, a 5xx) relists after exponential backoff. Every relist diffs against the cache, so objects
 * deleted while the watch was down are reported as deletions. A watch the server ends within a second having
 * sent nothing is client-go's "very short watch": a failure like the others (backoff, then relist), since
 * resuming at once would reopen it in a hot loop against a server that keeps closing it.
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
  /** Clock, for the short-watch check. */
  now?: () => number;
}

/** client-go's reflector: a watch that lasted under a second and delivered no event is a failure. */
const SHORT_WATCH_MS = 1_000;

/** A watch the server ended at once with nothing sent (client-go: "very short watch"). */
export class ShortWatchError extends Error {
  constructor(kind: string, lastedMs: number) {
    super(`very short watch of ${kind}: the server ended it after ${lastedMs} ms with no event`);
    this.name = "ShortWatchError";
  }
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
  const now = options.now ?? Date.now;
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

  /** Watches until a failure; `onHealthy` runs after each watch that lasted or delivered an event. */
  async function watchFrom(start: string, onHealthy: () => void): Promise<void> {
    let resourceVersion = start;
    while (!abort.signal.aborted) {
      const opened = now();
      let events = 0;
      handle = await options.watch(resourceVersion, (event) => {
        events += 1;
        resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
        apply(event.type, event.object);
      });
      if (abort.signal.aborted) handle.stop();
      let ended: unknown;
      // Resolves on a clean end (the server's watch timeout): resume where we were.
      await handle.done.catch((error: unknown) => {
        ended = error ?? new Error("watch failed");
      });
      const short = events === 0 && now() - opened < SHORT_WATCH_MS;
      if (!short) onHealthy();
      if (ended) throw ended;
      if (short && !abort.signal.aborted) throw new ShortWatchError(options.kind, now() - opened);
    }
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        const resourceVersion = await relist();
        // A successful list alone does not end the backoff: a server closing every watch lists fine.
        await watchFrom(resourceVersion, () => {
          failures = 0;
        });
      } catch (error) {
        if (abort.signal.aborted) break;
        if (isKubeError(error, 410)) {
          options.metrics?.informerRestarts.inc({ kind: options.kind, reason: "expired" });
          options.log.info({ kind: options.kind }, "watch expired (410); relisting");
          continue;
        }
        failures += 1;
        const reason = error instanceof ShortWatchError ? "short_watch" : "error";
        options.metrics?.informerRestarts.inc({ kind: options.kind, reason });
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
