/** client-node request options the clients share: patch content types, abort signals, delete bodies. */
import {
  type ConfigurationOptions,
  Observable,
  PatchStrategy,
  type RequestContext,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { DeleteOptions, ListResult, Patch } from "./types.ts";

export function patchOptions(patch: Patch): ConfigurationOptions {
  // client-node picks application/json-patch+json for every patch unless told otherwise.
  return setHeaderOptions(
    "Content-Type",
    Array.isArray(patch) ? PatchStrategy.JsonPatch : PatchStrategy.MergePatch,
  );
}

/** Request options carrying an AbortSignal into client-node's fetch. */
export function signalOptions(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (!signal) return undefined;
  return {
    middleware: [
      {
        pre: (request: RequestContext) => {
          request.setSignal(signal);
          return new Observable(Promise.resolve(request));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: "append",
  };
}

/** The DOMException client-node's Watch ends a stream with when its inactivity timer fires. */
export function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}

export function deleteBody(options: DeleteOptions = {}) {
  return {
    ...(options.resourceVersion ? { preconditions: { resourceVersion: options.resourceVersion } } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
  };
}

export function listResult<T>(list: { items: T[]; metadata?: { resourceVersion?: string } }): ListResult<T> {
  return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? "" };
}
