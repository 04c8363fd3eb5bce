/**
 * The fake's etcd and registry: one global resourceVersion counter, an event history for watches (dropped by
 * compact()), and the generic-registry rules an operator depends on — generation, the /status split,
 * optimistic concurrency, finalizers with deletionTimestamp, and owner-reference garbage collection.
 */
import { isDeepStrictEqual } from "node:util";
import { admit, checkTypeMeta, type KubeObject } from "./admission.ts";
import { applyPatch } from "./patch.ts";
import type { ResourceType } from "./resources.ts";
import { alreadyExists, conflict, expired, notFound, type Subject } from "./status.ts";
import type { DeleteOptions, StoredEvent, WriteOptions, WriteResult } from "./store-types.ts";
import { now, prepareForCreate, prepareForUpdate, requireResourceVersion } from "./strategy.ts";

export type { DeleteOptions, StoredEvent, WriteOptions, WriteResult } from "./store-types.ts";

const clone = <T>(v: T): T => structuredClone(v);
/** The finalizers the registry adds for propagationPolicy Foreground and Orphan. */
export const FOREGROUND = "foregroundDeletion";
export const ORPHAN = "orphan";
// Events hold their ResourceType (with compiled validators) by reference; only the objects are copied.
const cloneEvent = (e: StoredEvent): StoredEvent => ({
  ...e,
  object: clone(e.object),
  ...(e.previous ? { previous: clone(e.previous) } : {}),
});

function withoutVolatile(obj: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

export class ObjectStore {
  private rv = 0;
  private compactedRv = 0;
  private readonly objects = new Map<string, KubeObject>();
  private history: StoredEvent[] = [];
  private readonly listeners = new Set<(event: StoredEvent) => void>();

  /** The latest resourceVersion issued. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Reads one object (a copy). */
  get(type: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.objects.get(this.key(type, namespace, name));
    if (!found) throw notFound(this.subject(type, name));
    return clone(found);
  }

  /** All objects of a type, optionally in one namespace, sorted like etcd keys. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    const prefix = namespace === undefined ? `${this.typeKey(type)}/` : `${this.typeKey(type)}/${namespace}/`;
    return [...this.objects.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, v]) => clone(v));
  }

  /** Throws 410 Expired when `from` predates the last compaction; else the events after `from`. */
  eventsSince(from: number): StoredEvent[] {
    if (from < this.compactedRv) throw expired(from, this.compactedRv);
    return this.history.filter((e) => e.rv > from).map(cloneEvent);
  }

  /** Drops the event history; every resourceVersion issued so far becomes too old to watch from. */
  compact(): number {
    this.rv += 1;
    this.compactedRv = this.rv;
    this.history = [];
    return this.compactedRv;
  }

  /** Calls `listener` for every future change; returns the unsubscribe function. */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  create(
    type: ResourceType,
    namespace: string,
    body: Record<string, unknown>,
    opts: WriteOptions,
  ): WriteResult {
    const obj = prepareForCreate(type, namespace, body);
    const warnings = admit(type, obj, undefined, opts.strict);
    const name = obj.metadata.name ?? "";
    if (this.objects.has(this.key(type, namespace, name))) throw alreadyExists(this.subject(type, name));
    return { object: this.commit(type, "ADDED", obj), warnings };
  }

  /**
   * PUT of the main resource or /status. A custom resource must carry metadata.resourceVersion; built-ins
   * may omit it (unconditional update), as in kube-apiserver.
   */
  update(
    type: ResourceType,
    namespace: string,
    name: string,
    body: Record<string, unknown>,
    opts: WriteOptions & { status: boolean },
  ): WriteResult {
    checkTypeMeta(type, body);
    const candidate = body as unknown as KubeObject;
    requireResourceVersion(type, name, candidate);
    return this.replace(type, namespace, name, candidate, opts);
  }

  /** PATCH (JSON patch or merge patch) of the main resource or /status; never needs a resourceVersion. */
  patch(
    type: ResourceType,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    opts: WriteOptions & { status: boolean },
  ): WriteResult {
    const current = this.get(type, namespace, name);
    const candidate = applyPatch(contentType, current, body) as KubeObject;
    checkTypeMeta(type, candidate);
    return this.replace(type, namespace, name, candidate, opts);
  }

  delete(
    type: ResourceType,
    namespace: string,
    name: string,
    opts: DeleteOptions,
  ): { object: KubeObject; deleted: boolean } {
    const prev = this.get(type, namespace, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== prev.metadata.uid) {
      throw conflict(
        this.subject(type, name),
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${prev.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== prev.metadata.resourceVersion) {
      throw conflict(
        this.subject(type, name),
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${prev.metadata.resourceVersion}`,
      );
    }
    const policy = opts.propagationPolicy ?? "Background";
    // The registry turns Foreground and Orphan into a finalizer the garbage collector acts on and removes.
    const gcFinalizer = policy === "Foreground" ? FOREGROUND : policy === "Orphan" ? ORPHAN : undefined;
    const finalizers = [...(prev.metadata.finalizers ?? [])];
    if (prev.metadata.deletionTimestamp) return { object: prev, deleted: false };
    if (finalizers.length === 0 && !gcFinalizer) {
      return { object: this.remove(type, prev), deleted: true };
    }
    const next = clone(prev);
    // markAsDeleting in the generic registry bumps generation for kinds that track it.
    if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
    if (gcFinalizer && !finalizers.includes(gcFinalizer))
      next.metadata.finalizers = [...finalizers, gcFinalizer];
    Object.assign(next.metadata, { deletionTimestamp: now(), deletionGracePeriodSeconds: 0 });
    const marked = this.commit(type, "MODIFIED", next, prev);
    this.scheduleGarbageCollection();
    return { object: marked, deleted: false };
  }

  /**
   * Deletes every object of a type, as the API server does when its CRD is deleted (finalizers of those
   * objects are not waited for here). Returns how many there were.
   */
  deleteAll(type: ResourceType): number {
    const objects = this.list(type);
    for (const obj of objects) this.remove(type, obj);
    return objects.length;
  }

  private replace(
    type: ResourceType,
    namespace: string,
    name: string,
    candidate: KubeObject,
    opts: WriteOptions & { status: boolean },
  ): WriteResult {
    const prev = this.get(type, namespace, name);
    const next = prepareForUpdate(type, prev, candidate, opts.status);
    const warnings = admit(type, next, prev, opts.strict);
    if (type.custom && !opts.status && !isDeepStrictEqual(specOf(next), specOf(prev))) {
      next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = prev.metadata.resourceVersion;
    // A write that changes nothing is not a write: no new resourceVersion, no watch event.
    if (isDeepStrictEqual(withoutVolatile(next), withoutVolatile(prev))) return { object: prev, warnings };
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      return { object: this.remove(type, next), warnings };
    }
    const stored = this.commit(type, "MODIFIED", next, prev);
    // A dependent that lost its ownerReference may unblock an owner in foreground deletion.
    if (!isDeepStrictEqual(next.metadata.ownerReferences, prev.metadata.ownerReferences))
      this.scheduleGarbageCollection();
    return { object: stored, warnings };
  }

  private remove(type: ResourceType, obj: KubeObject): KubeObject {
    const namespace = obj.metadata.namespace ?? "";
    this.objects.delete(this.key(type, namespace, obj.metadata.name ?? ""));
    const gone = this.commit(type, "DELETED", obj);
    this.scheduleGarbageCollection();
    return gone;
  }

  private collectionScheduled = false;

  /**
   * Runs the collector a moment after a change, not within the request: kube-controller-manager's collector
   * works from its own informers, so a DELETE answers before any dependent is touched (a test that read the
   * dependents right after the owner was gone passed here and failed on the real server).
   */
  private scheduleGarbageCollection(): void {
    if (this.collectionScheduled) return;
    this.collectionScheduled = true;
    setTimeout(() => {
      this.collectionScheduled = false;
      this.collectGarbage();
    }, 10).unref();
  }

  /**
   * The garbage collector, run after every change that can concern it:
   *  - an owner marked with `orphan`: its dependents lose their ownerReference to it, then the finalizer goes;
   *  - an owner marked with `foregroundDeletion`: every dependent is deleted (foreground too) while the owner
   *    stays; once no dependent with blockOwnerDeletion remains, the finalizer goes (other finalizers, such
   *    as an operator's, may keep the owner longer: its dependents are gone before they run);
   *  - a dependent whose owners are all gone is deleted (background).
   */
  private collectGarbage(): void {
    for (let changed = true; changed; ) {
      changed = false;
      for (const key of [...this.objects.keys()]) {
        // Read afresh: collecting one object may have changed or deleted the others.
        const obj = this.objects.get(key);
        const type = this.typeOfKey(key);
        if (!type || !obj) continue;
        if (this.collectOne(type, clone(obj))) changed = true;
      }
    }
  }

  private dependentsOf(owner: KubeObject): [ResourceType, KubeObject][] {
    const found: [ResourceType, KubeObject][] = [];
    for (const [key, obj] of this.objects) {
      const type = this.typeOfKey(key);
      if (!type || obj.metadata.namespace !== owner.metadata.namespace) continue;
      if ((obj.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid))
        found.push([type, obj]);
    }
    return found;
  }

  /** One step of the collector for one object; true when it changed something. */
  private collectOne(type: ResourceType, obj: KubeObject): boolean {
    const namespace = obj.metadata.namespace ?? "";
    const name = obj.metadata.name ?? "";
    const finalizers = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && finalizers.includes(ORPHAN)) {
      for (const [depType, dep] of this.dependentsOf(obj)) {
        const next = clone(dep);
        next.metadata.ownerReferences = (dep.metadata.ownerReferences ?? []).filter(
          (r) => r.uid !== obj.metadata.uid,
        );
        if (next.metadata.ownerReferences.length === 0) delete next.metadata.ownerReferences;
        this.commit(depType, "MODIFIED", next, dep);
      }
      this.dropFinalizer(type, obj, ORPHAN);
      return true;
    }
    if (obj.metadata.deletionTimestamp && finalizers.includes(FOREGROUND)) {
      const dependents = this.dependentsOf(obj);
      let changed = false;
      for (const [depType, dep] of dependents) {
        if (dep.metadata.deletionTimestamp) continue;
        this.delete(depType, namespace, dep.metadata.name ?? "", { propagationPolicy: "Foreground" });
        changed = true;
      }
      const blocking = this.dependentsOf(obj).some(([, dep]) =>
        (dep.metadata.ownerReferences ?? []).some((r) => r.uid === obj.metadata.uid && r.blockOwnerDeletion),
      );
      if (!blocking) {
        this.dropFinalizer(type, obj, FOREGROUND);
        return true;
      }
      return changed;
    }
    const owners = obj.metadata.ownerReferences ?? [];
    if (owners.length === 0 || obj.metadata.deletionTimestamp) return false;
    const live = owners.some((o) => [...this.objects.values()].some((x) => x.metadata.uid === o.uid));
    if (live) return false;
    this.delete(type, namespace, name, { propagationPolicy: "Background" });
    return true;
  }

  private dropFinalizer(type: ResourceType, obj: KubeObject, finalizer: string): void {
    const next = clone(obj);
    next.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (next.metadata.finalizers.length > 0) {
      this.commit(type, "MODIFIED", next, obj);
      return;
    }
    delete next.metadata.finalizers;
    this.objects.delete(this.key(type, obj.metadata.namespace ?? "", obj.metadata.name ?? ""));
    this.commit(type, "DELETED", next);
  }

  private readonly types = new Map<string, ResourceType>();

  private commit(
    type: ResourceType,
    kind: StoredEvent["type"],
    obj: KubeObject,
    previous?: KubeObject,
  ): KubeObject {
    this.rv += 1;
    obj.metadata.resourceVersion = String(this.rv);
    const key = this.key(type, obj.metadata.namespace ?? "", obj.metadata.name ?? "");
    if (kind !== "DELETED") this.objects.set(key, clone(obj));
    const event: StoredEvent = {
      rv: this.rv,
      type: kind,
      resource: type,
      object: obj,
      ...(previous ? { previous } : {}),
    };
    this.history.push(cloneEvent(event));
    for (const listener of this.listeners) listener(cloneEvent(event));
    return clone(obj);
  }

  private typeKey(type: ResourceType): string {
    const key = `${type.group}/${type.plural}`;
    this.types.set(key, type);
    return key;
  }

  private typeOfKey(objectKey: string): ResourceType | undefined {
    const [group = "", plural = ""] = objectKey.split("/");
    return this.types.get(`${group}/${plural}`);
  }

  private key(type: ResourceType, namespace: string, name: string): string {
    return `${this.typeKey(type)}/${namespace}/${name}`;
  }

  private subject(type: ResourceType, name: string): Subject {
    return { group: type.group, resource: type.plural, name };
  }
}
