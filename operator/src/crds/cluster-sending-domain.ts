import { ageColumn, type CrdDefinition, nameRoomFor, readyColumn, readyReasonColumn } from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";
import { sendingDomainSpec, sendingDomainStatus } from "./sending-domain.ts";

/** A namespace name (DNS-1123 label), as Kubernetes requires it. */
const namespaceName = {
  type: "string",
  minLength: 1,
  maxLength: 63,
  pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
} as const satisfies SchemaProps;

/** metav1.LabelSelector over namespaces' labels. */
const labelSelector = {
  type: "object",
  description:
    "Namespaces whose labels match (metav1.LabelSelector: matchLabels and matchExpressions, all must hold).",
  properties: {
    matchLabels: { type: "object", additionalProperties: { type: "string", maxLength: 63 } },
    matchExpressions: {
      type: "array",
      maxItems: 16,
      "x-kubernetes-list-type": "atomic",
      items: {
        type: "object",
        required: ["key", "operator"],
        properties: {
          key: { type: "string", minLength: 1, maxLength: 317 },
          operator: { type: "string", enum: ["In", "NotIn", "Exists", "DoesNotExist"] },
          values: {
            type: "array",
            maxItems: 64,
            "x-kubernetes-list-type": "atomic",
            items: { type: "string", maxLength: 63 },
          },
        },
      },
    },
  },
} as const satisfies SchemaProps;

const { publishDNS: _publishDNS, ...sharedProperties } = sendingDomainSpec.properties;

const spec = {
  type: "object",
  required: ["domain", "allowedNamespaces"],
  properties: {
    ...sharedProperties,
    allowedNamespaces: {
      type: "object",
      description:
        "The namespaces (accounts) that may send from the domain: those named, and those the selector matches " +
        "(re-read at every reconcile, at least each minute). Any other namespace's send answers 403 " +
        "domain_not_allowed. Each allowed namespace keeps its own log, suppressions, quotas and reputation.",
      properties: {
        names: {
          type: "array",
          maxItems: 256,
          items: namespaceName,
          "x-kubernetes-list-type": "set",
        },
        selector: labelSelector,
      },
    },
  },
} as const satisfies SchemaProps;

const status = {
  type: "object",
  properties: {
    ...sendingDomainStatus.properties,
    namespaces: {
      type: "array",
      description: "The namespaces allowed to send from the domain now (condition NamespacesAllowed).",
      maxItems: 4096,
      "x-kubernetes-list-type": "atomic",
      items: { type: "string", maxLength: 63 },
    },
  },
} as const satisfies SchemaProps;

/** ClusterSendingDomain: one domain, its keys and DNS, shared by the namespaces it allows (issue 31). */
export const clusterSendingDomainCrd: CrdDefinition = {
  kind: "ClusterSendingDomain",
  plural: "clustersendingdomains",
  singular: "clustersendingdomain",
  shortNames: ["mrclusterdomain"],
  description:
    "A domain Mailroom sends from on behalf of several namespaces (cert-manager's ClusterIssuer pattern): " +
    "its DKIM keys, DNS records, verification and rotation are managed once, as a SendingDomain's.",
  scope: "Cluster",
  spec,
  status,
  printerColumns: [
    readyColumn,
    { name: "Domain", type: "string", jsonPath: ".spec.domain" },
    { name: "Verification", type: "string", jsonPath: ".status.verification" },
    readyReasonColumn,
    ageColumn,
  ],
  maxNameLength: nameRoomFor(""),
};

/** ClusterSendingDomain spec as read from the API server. */
export type ClusterSendingDomainSpec = FromSchema<typeof spec>;
/** ClusterSendingDomain status. */
export type ClusterSendingDomainStatus = FromSchema<typeof status>;
