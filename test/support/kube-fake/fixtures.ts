/** Builders for valid custom resources, so each test states only what it changes. */
import type { ApiKey, SendingDomain, Template, WebhookEndpoint } from "../../../operator/src/crds/index.ts";
import type { CustomResourceDefinitionManifest } from "./schema.ts";

const API_VERSION = "mailroom.dev/v1alpha1" as const;

/** A valid ApiKey (defaults left to the server). */
export function apiKey(
  name: string,
  spec: Partial<ApiKey["spec"]> = {},
  labels?: Record<string, string>,
): ApiKey {
  return {
    apiVersion: API_VERSION,
    kind: "ApiKey",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { scopes: ["send"], ...spec } as ApiKey["spec"],
  };
}

/** A valid SendingDomain. */
export function sendingDomain(name: string, spec: Partial<SendingDomain["spec"]> = {}): SendingDomain {
  return {
    apiVersion: API_VERSION,
    kind: "SendingDomain",
    metadata: { name },
    spec: { domain: "mail.example.com", ...spec } as SendingDomain["spec"],
  };
}

/** A valid Template. */
export function template(name: string, spec: Partial<Template["spec"]> = {}): Template {
  return {
    apiVersion: API_VERSION,
    kind: "Template",
    metadata: { name },
    spec: { subject: "Hello {{name}}", text: "Hi {{name}}", ...spec } as Template["spec"],
  };
}

/** A valid WebhookEndpoint. */
export function webhookEndpoint(name: string, spec: Partial<WebhookEndpoint["spec"]> = {}): WebhookEndpoint {
  return {
    apiVersion: API_VERSION,
    kind: "WebhookEndpoint",
    metadata: { name },
    spec: {
      url: "https://hooks.example.com/mailroom",
      events: ["email.delivered"],
      ...spec,
    } as WebhookEndpoint["spec"],
  };
}

/** A Ready condition as a controller would write it. */
export function readyCondition(generation: number, status: "True" | "False" = "True") {
  return {
    type: "Ready",
    status,
    observedGeneration: generation,
    lastTransitionTime: "2025-01-01T00:00:00Z",
    reason: status === "True" ? "Reconciled" : "Failed",
    message: "",
  };
}

/**
 * external-dns's DNSEndpoint CRD (externaldns.k8s.io/v1alpha1, namespaced, /status subresource), with the
 * structural schema of its Go types (endpoint.Endpoint): a field the operator misnames is pruned, a wrong
 * type or record type rejected, exactly as in a cluster with external-dns installed. Upstream's recent CEL
 * rules (dnsName length, SRV/NAPTR/PTR target shapes) concern record types Mailroom never writes and are left
 * out, since the fake evaluates only the CEL shapes of our own CRDs.
 */
export function dnsEndpointCrd(): CustomResourceDefinitionManifest {
  const endpoint = {
    type: "object",
    required: ["dnsName", "recordType"],
    properties: {
      dnsName: { type: "string", minLength: 1, maxLength: 254 },
      recordType: {
        type: "string",
        enum: ["A", "AAAA", "CNAME", "DNAME", "MX", "NAPTR", "NS", "PTR", "SRV", "TLSA", "TXT"],
      },
      targets: { type: "array", maxItems: 1000, items: { type: "string", minLength: 1, maxLength: 4096 } },
      recordTTL: { type: "integer", format: "int64", minimum: 0, maximum: 2147483647 },
      setIdentifier: { type: "string", maxLength: 255 },
      labels: { type: "object", additionalProperties: { type: "string" } },
      providerSpecific: {
        type: "array",
        maxItems: 100,
        items: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string", minLength: 1, maxLength: 253 }, value: { type: "string" } },
        },
      },
    },
  };
  return {
    kind: "CustomResourceDefinition",
    metadata: { name: "dnsendpoints.externaldns.k8s.io" },
    spec: {
      group: "externaldns.k8s.io",
      scope: "Namespaced",
      names: { kind: "DNSEndpoint", listKind: "DNSEndpointList", plural: "dnsendpoints" },
      versions: [
        {
          name: "v1alpha1",
          served: true,
          // A real API server wants exactly one storage version (e2e-kind.sh applies this manifest).
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: {
                  type: "object",
                  properties: { endpoints: { type: "array", maxItems: 1000, items: endpoint } },
                },
                status: {
                  type: "object",
                  properties: { observedGeneration: { type: "integer", format: "int64" } },
                },
              },
            },
          },
        },
      ],
    },
  };
}
