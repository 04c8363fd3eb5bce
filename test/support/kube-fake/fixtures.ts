/** Builders for valid custom resources, so each test states only what it changes. */
import type { ApiKey, SendingDomain, Template, WebhookEndpoint } from "../../../operator/src/crds/index.ts";

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
