/** The shape of a stored object, shared by admission and the built-in kinds' checks. */
/** ObjectMeta fields the fake reads or maintains. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { uid: string; kind?: string; name?: string; blockOwnerDeletion?: boolean }[];
  [key: string]: unknown;
}

/** Any stored object. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
