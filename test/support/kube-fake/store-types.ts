/** The shapes the fake's object store takes and gives (store.ts). */
import type { KubeObject } from "./admission.ts";
import type { ResourceType } from "./resources.ts";

/** A change as watches see it. `previous` lets selector-filtered watches turn edits into ADDED/DELETED. */
export interface StoredEvent {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: ResourceType;
  object: KubeObject;
  previous?: KubeObject;
}

/** Options shared by writes. */
export interface WriteOptions {
  /** fieldValidation=Strict: unknown fields are an error rather than pruned with a warning. */
  strict: boolean;
}

/** The result of a write: the object as stored (or as last seen, when deleted) and warnings. */
export interface WriteResult {
  object: KubeObject;
  warnings: string[];
}

/** DeleteOptions fields the fake honours. */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
}
