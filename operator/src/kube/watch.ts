/**
 * One watch stream, as client-go's reflector opens it: bookmarks asked for, a jittered server-side timeout, and
 * client-node's inactivity timer firing on an established stream taken as a clean end (resume, no relist).
 */
import type { Watch } from "@kubernetes/client-node";
import { KubeError, toKubeError } from "./errors.ts";
import { isTimeout } from "./request-options.ts";
import type { ListOptions, WatchEvent, WatchHandle } from "./types.ts";

export interface WatchRequest extends ListOptions {
  resourceVersion?: string;
  /** The server ends the watch cleanly after this many seconds. */
  timeoutSeconds: number;
}

export async function openWatch<T>(
  watcher: Watch,
  path: string,
  query: WatchRequest,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<WatchHandle> {
  let stopped = false;
  let established = false;
  let ended = false;
  let failure: KubeError | undefined;
  let settle: (err?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err && !stopped ? reject(err) : resolve());
  });
  // A watch can fail before its caller awaits `done`; that must not be an unhandled rejection.
  done.catch(() => {});
  const controller = await watcher.watch(
    path,
    // Bookmarks keep the resourceVersion current on a quiet watch.
    { ...query, allowWatchBookmarks: true },
    (type: string, object: unknown) => {
      if (type === "ERROR") {
        const status = object as { code?: number; reason?: string; message?: string };
        failure = new KubeError(
          status.code ?? 500,
          status.reason ?? "Unknown",
          status.message ?? "watch error",
        );
      } else onEvent({ type: type as WatchEvent<T>["type"], object: object as T });
    },
    (err: unknown) => {
      ended = true;
      // The inactivity timer fired on an open stream: nothing happened, which is no failure.
      if (established && !failure && isTimeout(err)) settle();
      else settle(failure ?? toKubeError(err));
    },
  );
  // Before this returns, a timeout can only be the connect timeout: a real failure.
  established = !ended;
  return {
    stop() {
      stopped = true;
      controller.abort();
      settle();
    },
    done,
  };
}
