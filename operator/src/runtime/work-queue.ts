/**
 * A per-object work queue, after client-go's workqueue: a key is queued at most once, at most one handler
 * runs per key (a key added while it is being handled runs again right after), failures retry with
 * per-key exponential backoff, and a handler may ask to be run again after a delay.
 */
import type { OperatorLogger } from "../controllers/context.ts";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import type { OperatorMetrics } from "./metrics.ts";

export interface WorkQueueOptions {
  /** The kind, for metrics and logs. */
  name: string;
  handle(key: string): Promise<{ requeueAfterMs?: number } | undefined>;
  concurrency?: number;
  retry?: BackoffPolicy;
  metrics?: OperatorMetrics;
  log: OperatorLogger;
}

export interface WorkQueue {
  add(key: string): void;
  /** Adds the key after `ms`; an earlier pending add of the same key wins. */
  addAfter(key: string, ms: number): void;
  /** Keys waiting (not counting those being handled or delayed). */
  depth(): number;
  /** Resolves once nothing is queued or running (delayed adds excepted). For tests and shutdown. */
  idle(): Promise<void>;
  /** Stops taking work, drops delayed adds and waits for running handlers. */
  shutdown(): Promise<void>;
}

export function createWorkQueue(options: WorkQueueOptions): WorkQueue {
  const concurrency = options.concurrency ?? 2;
  const retry = options.retry ?? { baseMs: 200, maxMs: 60_000 };
  const queue: string[] = [];
  const queued = new Set<string>();
  const running = new Map<string, Promise<void>>();
  const dirty = new Set<string>();
  const failures = new Map<string, number>();
  const delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  let idleWaiters: (() => void)[] = [];
  let stopped = false;

  const gauge = () => options.metrics?.queueDepth.set({ kind: options.name }, queue.length);

  function notifyIdle() {
    if (queue.length > 0 || running.size > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  function add(key: string) {
    if (stopped) return;
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(key);
    gauge();
    pump();
  }

  function addAfter(key: string, ms: number) {
    if (stopped) return;
    const at = Date.now() + ms;
    const pending = delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      delayed.delete(key);
      add(key);
    }, ms);
    delayed.set(key, { at, timer });
  }

  async function run(key: string) {
    const end = options.metrics?.reconcileDuration.startTimer({ kind: options.name });
    try {
      const result = await options.handle(key);
      failures.delete(key);
      options.metrics?.reconciles.inc({ kind: options.name, result: "success" });
      if (result?.requeueAfterMs !== undefined) addAfter(key, result.requeueAfterMs);
    } catch (error) {
      const count = (failures.get(key) ?? 0) + 1;
      failures.set(key, count);
      options.metrics?.reconciles.inc({ kind: options.name, result: "error" });
      options.metrics?.reconcileErrors.inc({ kind: options.name });
      const wait = backoffDelay(retry, count);
      options.log.warn({ err: error, kind: options.name, key, retryInMs: wait }, "reconcile failed");
      addAfter(key, wait);
    } finally {
      end?.();
    }
  }

  function pump() {
    while (!stopped && running.size < concurrency) {
      const key = queue.find((k) => !running.has(k));
      if (key === undefined) break;
      queue.splice(queue.indexOf(key), 1);
      queued.delete(key);
      gauge();
      const task = run(key).finally(() => {
        running.delete(key);
        if (dirty.delete(key)) add(key);
        pump();
        notifyIdle();
      });
      running.set(key, task);
    }
  }

  return {
    add,
    addAfter,
    depth: () => queue.length,
    idle: () =>
      queue.length === 0 && running.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async shutdown() {
      stopped = true;
      for (const { timer } of delayed.values()) clearTimeout(timer);
      delayed.clear();
      queue.length = 0;
      queued.clear();
      gauge();
      await Promise.allSettled([...running.values()]);
      for (const resolve of idleWaiters.splice(0)) resolve();
      idleWaiters = [];
    },
  };
}
