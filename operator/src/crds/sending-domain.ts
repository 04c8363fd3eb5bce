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

const spec = {
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
            "DKIM selector of the RSA key (<selector>._domainkey); an Ed25519 key uses <selector>-ed25519. " +
            "Chosen by the operator when omitted. Immutable: the key is published under it.",
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

const status = {
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
  spec,
  status,
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
export type SendingDomainSpec = FromSchema<typeof spec>;
/** SendingDomain status. */
export type SendingDomainStatus = FromSchema<typeof status>;
