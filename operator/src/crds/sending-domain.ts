import {
  ageColumn,
  type CrdDefinition,
  conditionsSchema,
  nameRoomFor,
  observedGenerationSchema,
  readyColumn,
  readyReasonColumn,
  reclaimPolicySchema,
} from "./common.ts";
import type { FromSchema, SchemaProps } from "./schema-types.ts";

/** Per-record and overall verification states (DESIGN.md §6). */
export const VERIFICATION_STATES = ["pending", "verified", "failed", "temporary_failure"] as const;
/** DKIM signing algorithms: RSA always, Ed25519 as an optional second signature (RFC 8463). */
export const DKIM_ALGORITHMS = ["rsa-2048", "ed25519"] as const;
/** core's CHECK_NAMES; the CRD stays free of core (sending-domain.test.ts compares them). */
const CHECK_NAMES = ["SPF", "DKIM", "DMARC", "BounceMX", "ReverseDNS", "TLS"] as const;

/** SendingDomain's spec; ClusterSendingDomain's is built from it. */
export const sendingDomainSpec = {
  type: "object",
  required: ["domain"],
  properties: {
    domain: {
      type: "string",
      description: "The domain mail is sent from. Immutable: delete and recreate to change it.",
      minLength: 1,
      maxLength: 253,
      pattern: "^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
      "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "domain is immutable" }],
    },
    dkim: {
      type: "object",
      default: {},
      // On dkim, not on selector: a rule on selector does not run when it is absent, so removing it and then
      // setting another value would pass in two steps. dkim always exists (defaulted), so this sees both.
      "x-kubernetes-validations": [
        {
          rule: "!has(oldSelf.selector) || (has(self.selector) && self.selector == oldSelf.selector)",
          message: "dkim.selector is immutable: once set it can be neither changed nor removed",
        },
      ],
      properties: {
        selector: {
          type: "string",
          description:
            "DKIM selector of the first RSA key (<selector>._domainkey); an Ed25519 key uses " +
            "<selector>-ed25519. Chosen by the operator when omitted. Immutable: the key is published under it. " +
            "Rotation moves to new generated selectors and never reuses one.",
          minLength: 1,
          maxLength: 63,
          pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        },
        algorithms: {
          type: "array",
          minItems: 1,
          maxItems: DKIM_ALGORITHMS.length,
          default: ["rsa-2048"],
          items: { type: "string", enum: DKIM_ALGORITHMS },
          "x-kubernetes-list-type": "set",
          "x-kubernetes-validations": [
            {
              rule: "'rsa-2048' in self",
              message: "rsa-2048 is required; ed25519 is an optional second signature",
            },
          ],
        },
        rotation: {
          type: "object",
          description:
            "Scheduled DKIM key rotation: a new key under a new selector is published, signs once DNS serves it, " +
            "and the old selector stays published past the retry horizon before it is withdrawn. Annotate " +
            "mailroom.dev/rotate-dkim: <token> to rotate now (once per token), " +
            "or <compromised:token> to withdraw the old key at once.",
          properties: {
            intervalDays: {
              type: "integer",
              description:
                "Days a key signs before the next rotation starts (M3AAWG: at most 180); 0: never.",
              default: 180,
              minimum: 0,
              maximum: 3650,
            },
          },
        },
      },
    },
    publishDNS: {
      type: "boolean",
      description:
        "Publish the records through external-dns: a DNSEndpoint <name>-dns in this namespace, owned by this " +
        "resource (when the API server serves that CRD; condition DNSPublished says what happened).",
      default: false,
    },
    reclaimPolicy: reclaimPolicySchema,
  },
} as const satisfies SchemaProps;

const selectorList = {
  type: "array",
  maxItems: 8,
  "x-kubernetes-list-type": "atomic",
  items: {
    type: "object",
    required: ["selector", "algorithm"],
    properties: {
      selector: { type: "string", maxLength: 63 },
      algorithm: { type: "string", enum: DKIM_ALGORITHMS },
      since: { type: "string", format: "date-time" },
      servedSince: { type: "string", format: "date-time" },
      until: { type: "string", format: "date-time" },
    },
  },
} as const satisfies SchemaProps;

/** SendingDomain's status; ClusterSendingDomain's is built from it. */
export const sendingDomainStatus = {
  type: "object",
  properties: {
    verification: { type: "string", enum: VERIFICATION_STATES },
    records: {
      type: "array",
      description: "DNS records to publish, each with its own verification state.",
      maxItems: 16,
      "x-kubernetes-list-type": "atomic",
      items: {
        type: "object",
        required: ["type", "name", "value", "status"],
        properties: {
          type: { type: "string", enum: ["TXT", "CNAME", "MX"] },
          name: { type: "string", maxLength: 253 },
          value: { type: "string", maxLength: 4096 },
          status: { type: "string", enum: VERIFICATION_STATES },
        },
      },
    },
    dkim: {
      type: "object",
      description:
        "DKIM keys by rotation state, with their dates (condition DKIMRotation says what is next).",
      properties: {
        active: { ...selectorList, description: "Signing now, since `since`." },
        pending: {
          ...selectorList,
          description: "Published (status.records), signing once DNS has served it for an hour.",
        },
        retiring: { ...selectorList, description: "No longer signing; withdrawn from DNS at `until`." },
        nextRotation: { type: "string", format: "date-time", description: "When scheduled rotation starts." },
      },
    },
    checks: {
      type: "array",
      description:
        "The domain's compliance checks (condition Compliant sums them up), re-evaluated at each verification.",
      maxItems: CHECK_NAMES.length,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name", "status", "reason", "lastChecked"],
        properties: {
          name: { type: "string", enum: CHECK_NAMES },
          status: {
            type: "string",
            enum: ["pass", "fail", "unknown"],
            description: "unknown: not decidable now (a DNS outage, not configured, not applicable)",
          },
          reason: { type: "string", maxLength: 1024 },
          lastChecked: { type: "string", format: "date-time" },
        },
      },
    },
    observedGeneration: observedGenerationSchema,
    conditions: conditionsSchema,
  },
} as const satisfies SchemaProps;

/** SendingDomain: a domain with its DKIM keys and the DNS records proving ownership. */
export const sendingDomainCrd: CrdDefinition = {
  kind: "SendingDomain",
  plural: "sendingdomains",
  singular: "sendingdomain",
  shortNames: ["mrdomain"],
  description: "A domain Mailroom sends from, its DKIM keys and the DNS records to publish.",
  spec: sendingDomainSpec,
  status: sendingDomainStatus,
  printerColumns: [
    readyColumn,
    { name: "Domain", type: "string", jsonPath: ".spec.domain" },
    { name: "Verification", type: "string", jsonPath: ".status.verification" },
    readyReasonColumn,
    ageColumn,
  ],
  maxNameLength: nameRoomFor("-dns"),
};

/** SendingDomain spec as read from the API server. */
export type SendingDomainSpec = FromSchema<typeof sendingDomainSpec>;
/** SendingDomain status. */
export type SendingDomainStatus = FromSchema<typeof sendingDomainStatus>;
