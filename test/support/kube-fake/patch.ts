/**
 * The patch formats @kubernetes/client-node 2.x sends. Its generated patch methods pick the FIRST media type
 * of their list, application/json-patch+json, unless a caller overrides Content-Type (setHeaderOptions);
 * application/merge-patch+json is the other one custom resources accept.
 */
import { isDeepStrictEqual } from "node:util";
import { StatusError, unsupportedMediaType } from "./status.ts";

export const JSON_PATCH = "application/json-patch+json";
export const MERGE_PATCH = "application/merge-patch+json";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: { [key: string]: Json } =
    target !== null && typeof target === "object" && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key] ?? null, value);
  }
  return out;
}

function patchFailure(message: string): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "Invalid",
    code: 422,
  });
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw patchFailure(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function parentOf(doc: Json, path: string): { parent: Json; key: string } {
  const segs = pointer(path);
  const key = segs.pop();
  if (key === undefined) throw patchFailure("the root cannot be the target of this operation");
  let parent: Json = doc;
  for (const seg of segs) {
    const next: Json | undefined = Array.isArray(parent)
      ? parent[Number(seg)]
      : parent && typeof parent === "object"
        ? parent[seg]
        : undefined;
    if (next === undefined) throw patchFailure(`jsonpatch: path ${path} does not exist`);
    parent = next;
  }
  return { parent, key };
}

function read(doc: Json, path: string): Json {
  if (path === "") return doc;
  const { parent, key } = parentOf(doc, path);
  const value = Array.isArray(parent)
    ? parent[Number(key)]
    : parent && typeof parent === "object"
      ? parent[key]
      : undefined;
  if (value === undefined) throw patchFailure(`jsonpatch: path ${path} does not exist`);
  return value;
}

function remove(doc: Json, path: string): Json {
  const value = read(doc, path);
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as { [key: string]: Json })[key];
  return value;
}

function add(doc: Json, path: string, value: Json): Json {
  if (path === "") return value;
  const { parent, key } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw patchFailure(`jsonpatch: index ${key} out of bounds at ${path}`);
    }
    parent.splice(index, 0, value);
  } else if (parent && typeof parent === "object") parent[key] = value;
  else throw patchFailure(`jsonpatch: cannot add at ${path}`);
  return doc;
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch(target: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw patchFailure("a JSON patch must be an array of operations");
  let doc: Json = structuredClone(target);
  for (const op of ops as { op: string; path: string; from?: string; value?: Json }[]) {
    switch (op.op) {
      case "add":
        doc = add(doc, op.path, op.value ?? null);
        break;
      case "remove":
        remove(doc, op.path);
        break;
      case "replace":
        read(doc, op.path);
        if (op.path === "") doc = op.value ?? null;
        else {
          remove(doc, op.path);
          doc = add(doc, op.path, op.value ?? null);
        }
        break;
      case "move":
        doc = add(doc, op.path, remove(doc, op.from ?? ""));
        break;
      case "copy":
        doc = add(doc, op.path, structuredClone(read(doc, op.from ?? "")));
        break;
      case "test":
        if (!isDeepStrictEqual(read(doc, op.path), op.value)) {
          throw patchFailure(`jsonpatch: test operation for path ${op.path} failed`);
        }
        break;
      default:
        throw patchFailure(`jsonpatch: unexpected operation ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}

/** Applies a patch body of the given media type to a copy of `target`. */
export function applyPatch(contentType: string, target: unknown, body: unknown): Record<string, unknown> {
  const base = structuredClone(target) as Json;
  let out: Json;
  if (contentType === JSON_PATCH) out = jsonPatch(base, body);
  else if (contentType === MERGE_PATCH) out = mergePatch(base, body as Json);
  else {
    // Strategic merge (built-ins only) and server-side apply are not modelled: fail loudly rather than guess.
    throw unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH} (kube-fake does not implement ${contentType})`,
    );
  }
  if (out === null || typeof out !== "object" || Array.isArray(out))
    throw patchFailure("patch result is not an object");
  return out;
}
