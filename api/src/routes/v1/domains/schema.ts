/** JSON schemas of the domain routes: they validate, serialise and document (OpenAPI) at once. */
import {
  CHECK_NAMES,
  DKIM_ALGORITHMS,
  MAX_ROTATION_INTERVAL_DAYS,
  VERIFICATION_STATUSES,
} from "@mailroom/core/domains";
import { nullableTimestamp, timestamp } from "../../../schemas.ts";

const status = { type: "string", enum: [...VERIFICATION_STATUSES] } as const;

/** The settable part of a domain's DKIM rotation (issue 29). */
export const dkimRotationSettingsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["intervalDays"],
  properties: {
    intervalDays: {
      type: "integer",
      minimum: 0,
      maximum: MAX_ROTATION_INTERVAL_DAYS,
      description: "Rotate the DKIM keys this many days after they started signing (default 180); 0: never",
    },
  },
} as const;

export const createDomainBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: 253,
      description: "The sending domain, e.g. `mail.example.com`; IDNs accepted and stored in `xn--` form",
    },
    algorithms: {
      type: "array",
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
      items: { type: "string", enum: [...DKIM_ALGORITHMS] },
      contains: { const: "rsa" },
      description: '`["rsa"]` (default, RSA-2048) or `["rsa", "ed25519"]` to add an Ed25519 signature',
    },
    dkimRotation: dkimRotationSettingsSchema,
  },
} as const;

export const updateDomainBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["dkimRotation"],
  properties: { dkimRotation: dkimRotationSettingsSchema },
} as const;

export const rotateBodySchema = {
  type: ["object", "null"],
  additionalProperties: false,
  properties: {
    compromised: {
      type: "boolean",
      default: false,
      description:
        "The old key leaked: sign with the new key at once and withdraw every old selector now, accepting " +
        "that mail signed before DNS serves the new key fails DKIM",
    },
  },
} as const;

export const domainParamsSchema = {
  type: "object",
  required: ["domain"],
  properties: { domain: { type: "string", maxLength: 253, description: "The domain name" } },
} as const;

const recordSchema = {
  type: "object",
  additionalProperties: false,
  required: ["purpose", "type", "name", "value", "strings", "zoneFileLine", "required", "status"],
  properties: {
    purpose: {
      type: "string",
      enum: ["dkim", "spf", "mx", "dmarc"],
      description: "mx: the bounce domain's MX, where asynchronous bounces and complaints are received",
    },
    type: { type: "string", enum: ["TXT", "MX"] },
    name: { type: "string", description: "Fully qualified, without the trailing dot" },
    value: {
      type: "string",
      description: "The whole TXT value, as verifiers read it; for MX, `<priority> <host>`",
    },
    strings: {
      type: "array",
      items: { type: "string" },
      description: "The value split into the ≤255-byte character-strings a TXT record is made of",
    },
    zoneFileLine: { type: "string", description: "The record as a BIND zone-file line" },
    required: {
      type: "boolean",
      description: "Required records decide verification; the others are advice, checked and reported",
    },
    status,
    reason: { type: ["string", "null"], description: "What was expected and what was found" },
    lastCheckedAt: nullableTimestamp,
  },
} as const;

export const domainSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "id",
    "name",
    "status",
    "returnPathDomain",
    "createdAt",
    "dkimKeys",
    "dkimRotation",
    "records",
    "checks",
    "reputation",
  ],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status,
    statusReason: {
      type: ["string", "null"],
      description: "Why the domain is not verified when no single record explains it",
    },
    returnPathDomain: { type: "string", description: "The envelope sender (Return-Path) domain" },
    createdAt: timestamp,
    lastCheckedAt: nullableTimestamp,
    verifiedAt: nullableTimestamp,
    nextCheckAt: { ...timestamp, description: "When the background recheck looks at the domain again" },
    dkimKeys: {
      type: "array",
      description: "Public halves only; private keys never leave Mailroom",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["selector", "algorithm", "publicKey", "createdAt", "state"],
        properties: {
          selector: { type: "string" },
          algorithm: { type: "string", enum: [...DKIM_ALGORITHMS] },
          publicKey: { type: "string", description: "The base64 p= value" },
          createdAt: timestamp,
          state: {
            type: "string",
            enum: ["pending", "active", "retiring"],
            description:
              "pending: publish it, it signs once DNS serves it; active: signing; retiring: keep it " +
              "published until withdrawAt, then remove it",
          },
          servedAt: { ...nullableTimestamp, description: "A pending key: since when DNS serves it" },
          activatedAt: { ...nullableTimestamp, description: "When it started signing" },
          withdrawAt: { ...nullableTimestamp, description: "A retiring key: when its selector is withdrawn" },
        },
      },
    },
    dkimRotation: {
      type: "object",
      additionalProperties: false,
      required: ["intervalDays", "nextRotationAt", "requestedAt"],
      properties: {
        intervalDays: dkimRotationSettingsSchema.properties.intervalDays,
        nextRotationAt: { ...nullableTimestamp, description: "When scheduled rotation starts the next one" },
        requestedAt: { ...nullableTimestamp, description: "A rotate-now request not yet started" },
      },
    },
    records: { type: "array", items: recordSchema },
    checks: {
      type: "array",
      description:
        "Compliance checks, re-evaluated at each verification (hourly, and on POST …/verify): SPF, DKIM, DMARC, " +
        "BounceMX, ReverseDNS (direct mode), TLS (the relay's STARTTLS); empty before the first one",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "status", "reason", "checkedAt", "since"],
        properties: {
          name: { type: "string", enum: [...CHECK_NAMES] },
          status: {
            type: "string",
            enum: ["pass", "fail", "unknown"],
            description: "unknown: not decidable now (a DNS outage, not configured, not applicable)",
          },
          reason: { type: "string" },
          checkedAt: timestamp,
          since: { ...timestamp, description: "Since when the check has had this status" },
        },
      },
    },
    reputation: {
      type: "array",
      description:
        "Bounce and complaint rates of the domain's mail over 24 h and 168 h (the reputation guard's, updated " +
        "every minute); receivers' complaint lines are 0.1 % and 0.3 %; empty before the domain sent mail",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["windowHours", "sent", "bounced", "complained", "bounceRate", "complaintRate", "level"],
        properties: {
          windowHours: { type: "integer" },
          sent: { type: "integer" },
          bounced: { type: "integer" },
          complained: { type: "integer" },
          bounceRate: { type: ["number", "null"] },
          complaintRate: { type: ["number", "null"] },
          level: {
            type: "string",
            enum: ["ok", "low_volume", "warn", "pause"],
            description: "Against the account's thresholds; low_volume: under the minimum volume, not judged",
          },
        },
      },
    },
  },
} as const;

export const domainListSchema = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: { data: { type: "array", items: domainSchema } },
} as const;
