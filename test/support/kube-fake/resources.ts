import type { CustomResourceType } from "./schema.ts";

/** A resource type the fake serves. Built-in kinds are opaque to schema validation. */
export interface ResourceType {
  /** "" for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  listKind: string;
  /** No namespace in its paths or objects (Namespaces, a `scope: Cluster` CRD). */
  clusterScoped?: boolean;
  /** Present for our CRDs: schema, status subresource, generation and CR update rules apply. */
  custom?: CustomResourceType;
}

/** The built-in kinds an operator touches: Secrets, Events and coordination.k8s.io Leases. */
export const BUILT_IN_TYPES: readonly ResourceType[] = [
  { group: "", version: "v1", plural: "secrets", kind: "Secret", listKind: "SecretList" },
  { group: "", version: "v1", plural: "events", kind: "Event", listKind: "EventList" },
  { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", listKind: "LeaseList" },
  // Objects only: a namespaced object does not need its Namespace to exist here (README, Not modelled).
  {
    group: "",
    version: "v1",
    plural: "namespaces",
    kind: "Namespace",
    listKind: "NamespaceList",
    clusterScoped: true,
  },
];

/** `apiVersion` of a type: `v1` or `group/version`. */
export function apiVersionOf(t: ResourceType): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** A request path resolved against the served types. */
export type Route =
  | { kind: "discovery"; group: string; version: string }
  | {
      kind: "resource";
      type: ResourceType;
      /** undefined: all namespaces (list/watch only). */
      namespace?: string;
      name?: string;
      subresource?: "status";
    };

/**
 * Parses /api/v1/... and /apis/<group>/<version>/... paths. Returns undefined for paths the fake does not
 * serve (the router answers 404 like the API server does for an unknown resource).
 */
export function resolveRoute(pathname: string, types: readonly ResourceType[]): Route | undefined {
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  let group: string;
  let rest: string[];
  if (parts[0] === "api" && parts[1] === "v1") {
    group = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1] as string;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  const version = group ? (parts[2] as string) : "v1";
  if (rest.length === 0) {
    return types.some((t) => t.group === group && t.version === version)
      ? { kind: "discovery", group, version }
      : undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  const type = types.find((t) => t.group === group && t.version === version && t.plural === plural);
  if (!type || extra.length > 0) return undefined;
  if (subresource !== undefined && (subresource !== "status" || !type.custom?.statusSubresource))
    return undefined;
  // A cluster-scoped kind has no namespaced paths; a namespaced one names its namespace for one object.
  if (type.clusterScoped ? namespace !== undefined : name !== undefined && namespace === undefined)
    return undefined;
  return {
    kind: "resource",
    type,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource === "status" ? { subresource } : {}),
  };
}

/** APIResourceList for /apis/<group>/<version>, enough for "is this API installed" checks. */
export function discoveryDocument(group: string, version: string, types: readonly ResourceType[]): unknown {
  const served = types.filter((t) => t.group === group && t.version === version);
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: served.flatMap((t) => [
      {
        name: t.plural,
        singularName: t.kind.toLowerCase(),
        namespaced: !t.clusterScoped,
        kind: t.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      },
      ...(t.custom?.statusSubresource
        ? [
            {
              name: `${t.plural}/status`,
              singularName: "",
              namespaced: !t.clusterScoped,
              kind: t.kind,
              verbs: ["get", "patch", "update"],
            },
          ]
        : []),
    ]),
  };
}
