import type { V1ObjectMeta } from "@kubernetes/client-node";
import { type AccountPolicySpec, type AccountPolicyStatus, accountPolicyCrd } from "./account-policy.ts";
import { type ApiKeySpec, type ApiKeyStatus, apiKeyCrd } from "./api-key.ts";
import {
  type ClusterSendingDomainSpec,
  type ClusterSendingDomainStatus,
  clusterSendingDomainCrd,
} from "./cluster-sending-domain.ts";
import { API_VERSION, type CrdDefinition, GROUP, VERSION } from "./common.ts";
import type { PrinterColumn, SchemaProps } from "./schema-types.ts";
import { type SendingDomainSpec, type SendingDomainStatus, sendingDomainCrd } from "./sending-domain.ts";
import { type TemplateSpec, type TemplateStatus, templateCrd } from "./template.ts";
import {
  type WebhookEndpointSpec,
  type WebhookEndpointStatus,
  webhookEndpointCrd,
} from "./webhook-endpoint.ts";

export type { CrdDefinition };
export { API_VERSION, GROUP, VERSION };

/** Every Mailroom kind, in the order the generator writes them. */
export const CRD_DEFINITIONS = [
  apiKeyCrd,
  sendingDomainCrd,
  templateCrd,
  webhookEndpointCrd,
  accountPolicyCrd,
  clusterSendingDomainCrd,
] as const;

/** A custom resource as the API server returns it. */
export interface CustomResource<K extends string, Spec, Status> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}

/** ApiKey custom resource. */
export type ApiKey = CustomResource<"ApiKey", ApiKeySpec, ApiKeyStatus>;
/** SendingDomain custom resource. */
export type SendingDomain = CustomResource<"SendingDomain", SendingDomainSpec, SendingDomainStatus>;
/** Template custom resource. */
export type Template = CustomResource<"Template", TemplateSpec, TemplateStatus>;
/** WebhookEndpoint custom resource. */
export type WebhookEndpoint = CustomResource<"WebhookEndpoint", WebhookEndpointSpec, WebhookEndpointStatus>;

/** ClusterSendingDomain custom resource (cluster-scoped: no metadata.namespace). */
export type ClusterSendingDomain = CustomResource<
  "ClusterSendingDomain",
  ClusterSendingDomainSpec,
  ClusterSendingDomainStatus
>;

/** AccountPolicy custom resource. */
export type AccountPolicy = CustomResource<"AccountPolicy", AccountPolicySpec, AccountPolicyStatus>;

/** Kind name -> resource type, so generic code can stay typed per kind. */
export interface MailroomKinds {
  AccountPolicy: AccountPolicy;
  ApiKey: ApiKey;
  ClusterSendingDomain: ClusterSendingDomain;
  SendingDomain: SendingDomain;
  Template: Template;
  WebhookEndpoint: WebhookEndpoint;
}
/** One of our kind names. */
export type MailroomKind = keyof MailroomKinds;

/** Looks up a kind's definition (plural, short names, schema). */
export function crdDefinitionOf(kind: MailroomKind): CrdDefinition {
  const def = CRD_DEFINITIONS.find((d) => d.kind === kind);
  if (!def) throw new Error(`unknown Mailroom kind ${kind}`);
  return def;
}

/**
 * A CustomResourceDefinition manifest in wire form. The client's V1CustomResourceDefinition model is not used:
 * its property names are camelCase (xKubernetesValidations) and only its serializer knows the wire names.
 */
export interface CustomResourceDefinitionManifest {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string };
  spec: {
    group: string;
    scope: "Namespaced" | "Cluster";
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: SchemaProps };
    }[];
  };
}

/** Builds the apiextensions.k8s.io/v1 CustomResourceDefinition for one kind. */
export function buildCustomResourceDefinition(def: CrdDefinition): CustomResourceDefinitionManifest {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${def.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: def.scope ?? "Namespaced",
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: [...def.shortNames],
        categories: ["mailroom"],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.printerColumns.map((c) => ({ ...c })),
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: def.description,
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                // The one ObjectMeta field a CRD may constrain (besides generateName).
                metadata: {
                  type: "object",
                  properties: { name: { type: "string", maxLength: def.maxNameLength } },
                },
                spec: def.spec,
                status: def.status,
              },
            },
          },
        },
      ],
    },
  };
}
