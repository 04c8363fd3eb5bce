import type { PrinterColumn, SchemaProps } from "./schema-types.ts";

/** API group of every Mailroom custom resource. */
export const GROUP = "mailroom.dev";
/** The one served and stored version. */
export const VERSION = "v1alpha1";
/** `apiVersion` as written in manifests. */
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Everything needed to emit one CustomResourceDefinition. */
export interface CrdDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly description: string;
  readonly spec: SchemaProps;
  readonly status: SchemaProps;
  readonly printerColumns: readonly PrinterColumn[];
  /** Namespaced when absent; Cluster for a kind no namespace owns (ClusterSendingDomain). */
  readonly scope?: "Namespaced" | "Cluster";
  /**
   * The longest name a resource may have, so that the names generated from it (`<name>-api-key`,
   * `<name>-webhook-secret`, `<name>-dns`) stay within the 253 characters of an object name: a longer one
   * was accepted and then failed at every reconcile.
   */
  readonly maxNameLength: number;
}

/** The longest Kubernetes object name (a DNS-1123 subdomain). */
const MAX_OBJECT_NAME = 253;

/** maxNameLength for a kind whose generated names append `suffix` to the resource's name. */
export function nameRoomFor(suffix: string): number {
  return MAX_OBJECT_NAME - suffix.length;
}

/** metav1.Condition, with the bounds the upstream type declares so our status cannot drift from it. */
export const conditionSchema = {
  type: "object",
  description: "metav1.Condition: one aspect of the resource's current state.",
  required: ["type", "status", "lastTransitionTime", "reason", "message"],
  properties: {
    type: {
      type: "string",
      maxLength: 316,
      pattern:
        "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
    },
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    observedGeneration: { type: "integer", format: "int64", minimum: 0 },
    lastTransitionTime: { type: "string", format: "date-time" },
    reason: {
      type: "string",
      minLength: 1,
      maxLength: 1024,
      pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
    },
    message: { type: "string", maxLength: 32768 },
  },
} as const satisfies SchemaProps;

/** `status.conditions`: a map-list keyed by type, as `kubectl wait --for=condition=Ready` expects. */
export const conditionsSchema = {
  type: "array",
  maxItems: 8,
  items: conditionSchema,
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
} as const satisfies SchemaProps;

/** `spec.reclaimPolicy`: what deleting the resource does to the state it created in Postgres. */
export const reclaimPolicySchema = {
  type: "string",
  description:
    "Delete removes (or revokes) the Postgres state when the resource is deleted; Retain keeps it.",
  enum: ["Delete", "Retain"],
  default: "Delete",
} as const satisfies SchemaProps;

/** `status.observedGeneration`: the generation the status describes. */
export const observedGenerationSchema = {
  type: "integer",
  format: "int64",
  minimum: 0,
} as const satisfies SchemaProps;

/** The Ready column every kind shows first. */
export const readyColumn: PrinterColumn = {
  name: "Ready",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};

/** Why Ready is what it is, in `kubectl get -o wide`: the first thing to read when Ready is False. */
export const readyReasonColumn: PrinterColumn = {
  name: "Reason",
  type: "string",
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  priority: 1,
};

/** The Age column `kubectl get` shows for built-in kinds. */
export const ageColumn: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
};

/** A Kubernetes Secret name (DNS-1123 subdomain). */
export const secretNameSchema = {
  type: "string",
  minLength: 1,
  maxLength: 253,
  pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
} as const satisfies SchemaProps;
