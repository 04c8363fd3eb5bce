/** HTTP routing of the fake: request parsing, verbs, and Status error responses. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { discoveryDocument, type ResourceType, resolveRoute } from "./resources.ts";
import { parseFieldSelector, parseLabelSelector, type Selector } from "./selectors.ts";
import { badRequest, internalError, methodNotAllowed, pathNotFound, StatusError } from "./status.ts";
import type { DeleteOptions, ObjectStore } from "./store.ts";
import type { WatchHub } from "./watch.ts";

/** One request as the fake saw it, for assertions such as "the informer relisted". */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  watch: boolean;
  contentType?: string;
  /** Who sent it: the user of the KubeConfig (`kubeConfig(user)`), "kube-fake" by default. */
  user: string;
}

/** Requests matching `matches` get no answer until `release()`: a partition, or an API server that hangs. */
export interface Hold {
  matches(request: RecordedRequest): boolean;
  waiting: (() => void)[];
  released: boolean;
}

/** What the handler needs. */
export interface ServerContext {
  store: ObjectStore;
  watches: WatchHub;
  types: readonly ResourceType[];
  token: string;
  requests: RecordedRequest[];
  holds: Set<Hold>;
}

const MAX_BODY_BYTES = 3 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new StatusError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Request entity too large",
        reason: "RequestEntityTooLarge",
        code: 413,
      });
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`the body of the request could not be decoded as JSON: ${text.slice(0, 80)}`);
  }
}

const both =
  (a: Selector, b: Selector): Selector =>
  (o) =>
    a(o) && b(o);

function send(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (warnings.length > 0) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ");
  res.writeHead(code, headers);
  res.end(JSON.stringify(body));
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badRequest("the request body must be a JSON object");
  return body as Record<string, unknown>;
}

function list(
  ctx: ServerContext,
  type: ResourceType,
  namespace: string | undefined,
  q: URLSearchParams,
): unknown {
  const rv = q.get("resourceVersion");
  if (rv && q.get("resourceVersionMatch") === "Exact" && Number(rv) !== ctx.store.resourceVersion) {
    ctx.store.eventsSince(Number(rv)); // 410 Expired when compacted, as etcd answers
    throw internalError(
      "kube-fake keeps no past snapshots: an Exact list is served at the latest resourceVersion only",
    );
  }
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"));
  const items = ctx.store.list(type, namespace).filter((o) => labels(o) && fields(o));
  return {
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    kind: type.listKind,
    metadata: { resourceVersion: String(ctx.store.resourceVersion) },
    // The real server's list items of built-in kinds carry no apiVersion/kind; custom resources' do.
    items: type.custom ? items : items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
  };
}

/** The user a bearer token stands for: `<token>` is "kube-fake", `<token>.<user>` is <user>. */
function userOf(ctx: ServerContext, authorization: string | undefined): string | undefined {
  const prefix = `Bearer ${ctx.token}`;
  if (authorization === prefix) return "kube-fake";
  return authorization?.startsWith(`${prefix}.`) ? authorization.slice(prefix.length + 1) : undefined;
}

async function handle(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://kube-fake");
  const q = url.searchParams;
  const method = req.method ?? "GET";
  const isWatch = q.get("watch") === "true" || q.get("watch") === "1";
  const contentType = req.headers["content-type"]?.split(";")[0]?.trim();
  const user = userOf(ctx, req.headers.authorization);
  const recorded: RecordedRequest = {
    method,
    path: url.pathname,
    query: Object.fromEntries(q),
    watch: isWatch,
    ...(contentType ? { contentType } : {}),
    user: user ?? "",
  };
  ctx.requests.push(recorded);
  const hold = [...ctx.holds].find((h) => !h.released && h.matches(recorded));
  if (hold) await new Promise<void>((resume) => hold.waiting.push(resume));
  if (user === undefined) {
    send(res, 401, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
    return;
  }
  const route = resolveRoute(url.pathname, ctx.types);
  if (!route) throw pathNotFound(url.pathname);
  if (route.kind === "discovery") {
    send(res, 200, discoveryDocument(route.group, route.version, ctx.types));
    return;
  }
  if (q.has("dryRun")) throw badRequest("kube-fake does not implement dryRun");
  const { type, namespace, name } = route;
  const status = route.subresource === "status";
  const strict = q.get("fieldValidation") === "Strict";
  if (name === undefined) {
    if (method === "GET" && isWatch) {
      const timeout = Number(q.get("timeoutSeconds") ?? 0);
      ctx.watches.serve(req, res, ctx.store, {
        type,
        bookmarks: q.get("allowWatchBookmarks") === "true",
        ...(namespace !== undefined ? { namespace } : {}),
        ...(q.get("resourceVersion") ? { resourceVersion: q.get("resourceVersion") as string } : {}),
        ...(timeout > 0 ? { timeoutSeconds: timeout } : {}),
        selector: both(
          parseLabelSelector(q.get("labelSelector")),
          parseFieldSelector(q.get("fieldSelector")),
        ),
      });
      return;
    }
    if (method === "GET") return send(res, 200, list(ctx, type, namespace, q));
    if (method === "POST" && (namespace !== undefined || type.clusterScoped)) {
      const { object, warnings } = ctx.store.create(type, namespace ?? "", asObject(await readBody(req)), {
        strict,
      });
      return send(res, 201, object, warnings);
    }
    throw methodNotAllowed(
      `the server does not allow this method on the requested resource (${method} ${url.pathname})`,
    );
  }
  const ns = namespace ?? "";
  switch (method) {
    case "GET":
      return send(res, 200, ctx.store.get(type, ns, name));
    case "PUT": {
      const { object, warnings } = ctx.store.update(type, ns, name, asObject(await readBody(req)), {
        strict,
        status,
      });
      return send(res, 200, object, warnings);
    }
    case "PATCH": {
      const { object, warnings } = ctx.store.patch(type, ns, name, contentType ?? "", await readBody(req), {
        strict,
        status,
      });
      return send(res, 200, object, warnings);
    }
    case "DELETE": {
      if (status) throw methodNotAllowed("the server does not allow this method on the requested resource");
      const body = (await readBody(req)) as DeleteOptions | undefined;
      const policy = q.get("propagationPolicy") ?? body?.propagationPolicy;
      const { object, deleted } = ctx.store.delete(type, ns, name, {
        ...(body?.preconditions ? { preconditions: body.preconditions } : {}),
        ...(policy ? { propagationPolicy: policy as NonNullable<DeleteOptions["propagationPolicy"]> } : {}),
      });
      if (!deleted) return send(res, 202, object);
      // Custom resources answer with the deleted object, built-ins with a Success Status.
      if (type.custom) return send(res, 200, object);
      return send(res, 200, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: {
          name,
          ...(type.group ? { group: type.group } : {}),
          kind: type.plural,
          uid: object.metadata.uid,
        },
      });
    }
    default:
      throw methodNotAllowed(`the server does not allow this method on the requested resource (${method})`);
  }
}

/** The node:http request listener. */
export function createRequestListener(
  ctx: ServerContext,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(ctx, req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof StatusError) send(res, err.status.code, err.status);
      else {
        send(res, 500, internalError(`kube-fake internal error: ${String(err)}`).status);
      }
    });
  };
}
