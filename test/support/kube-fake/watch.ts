/**
 * Watch streams as kube-apiserver serves them: a chunked 200 response of newline-delimited JSON events.
 * A resourceVersion older than the last compaction yields a 200 whose only event is an ERROR carrying a
 * 410 Expired Status (what the watch cache does; client-node's informer relists on it).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeObject } from "./admission.ts";
import type { ResourceType } from "./resources.ts";
import type { Selector } from "./selectors.ts";
import { StatusError } from "./status.ts";
import type { ObjectStore, StoredEvent } from "./store.ts";

/** What a watch request asked for. */
export interface WatchRequest {
  type: ResourceType;
  namespace?: string;
  /** undefined or "0": start with synthetic ADDED events for the current state. */
  resourceVersion?: string;
  timeoutSeconds?: number;
  /** allowWatchBookmarks=true: BOOKMARK events carry the current resourceVersion (bookmark(), and at timeout). */
  bookmarks: boolean;
  selector: Selector;
}

interface OpenWatch {
  res: ServerResponse;
  request: WatchRequest;
  bookmark(): void;
}

type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** Maps a stored change to what a filtered watch sees (an edit can make an object enter or leave it). */
function visible(
  event: StoredEvent,
  w: WatchRequest,
): { type: WatchEventType; object: KubeObject } | undefined {
  if (event.resource !== w.type) return undefined;
  if (w.namespace !== undefined && event.object.metadata.namespace !== w.namespace) return undefined;
  const now = w.selector(event.object);
  if (event.type !== "MODIFIED") return now ? { type: event.type, object: event.object } : undefined;
  const before = event.previous ? w.selector(event.previous) : false;
  if (now) return { type: before ? "MODIFIED" : "ADDED", object: event.object };
  return before ? { type: "DELETED", object: event.object } : undefined;
}

/** The open watch streams, so tests can drop them and close() can end them. */
export class WatchHub {
  private readonly open = new Set<OpenWatch>();

  /** Number of watch streams currently open. */
  get count(): number {
    return this.open.size;
  }

  /** Serves one watch; the response stays open until the client leaves, a timeout, or drop(). */
  serve(req: IncomingMessage, res: ServerResponse, store: ObjectStore, w: WatchRequest): void {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" });
    // Like the API server, answer at once: a client waits for headers before it reads any event.
    res.flushHeaders();
    const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    let backlog: StoredEvent[] = [];
    const from = w.resourceVersion && w.resourceVersion !== "0" ? Number(w.resourceVersion) : undefined;
    if (from !== undefined) {
      try {
        backlog = store.eventsSince(from);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
        send("ERROR", err.status);
        res.end();
        return;
      }
    } else {
      for (const object of store.list(w.type, w.namespace)) if (w.selector(object)) send("ADDED", object);
    }
    for (const event of backlog) {
      const shown = visible(event, w);
      if (shown) send(shown.type, shown.object);
    }
    const unsubscribe = store.subscribe((event) => {
      const shown = visible(event, w);
      if (shown) send(shown.type, shown.object);
    });
    const bookmark = () => {
      if (!w.bookmarks) return;
      // The API server's bookmark: an object of the watched kind with nothing but its resourceVersion.
      const apiVersion = w.type.group ? `${w.type.group}/${w.type.version}` : w.type.version;
      send("BOOKMARK", {
        kind: w.type.kind,
        apiVersion,
        metadata: { resourceVersion: String(store.resourceVersion) },
      });
    };
    // The server ends a watch at its timeoutSeconds, sending a last bookmark first when asked for them.
    const timer = w.timeoutSeconds
      ? setTimeout(() => {
          bookmark();
          res.end();
        }, w.timeoutSeconds * 1000)
      : undefined;
    const entry: OpenWatch = { res, request: w, bookmark };
    this.open.add(entry);
    const cleanup = () => {
      unsubscribe();
      clearTimeout(timer);
      this.open.delete(entry);
    };
    res.on("close", cleanup);
    req.on("close", cleanup);
  }

  /**
   * Ends every open watch. Graceful (default): the stream ends cleanly, as on an API server's watch timeout,
   * and clients resume from their last resourceVersion. Abrupt: the socket is destroyed mid-stream, as when
   * a connection or API server dies. Returns how many were dropped.
   */
  drop(opts: { abrupt?: boolean } = {}): number {
    const streams = [...this.open];
    for (const { res } of streams) {
      if (opts.abrupt) res.destroy();
      else res.end();
    }
    this.open.clear();
    return streams.length;
  }

  /** Sends a BOOKMARK on every open watch that asked for them; returns how many. */
  bookmark(): number {
    const asked = [...this.open].filter((w) => w.request.bookmarks);
    for (const w of asked) w.bookmark();
    return asked.length;
  }
}
