import type { Queryable } from "@mailroom/core/db";
import { type DomainRecord, getDmarcSummary } from "@mailroom/core/domains";
import type { FastifyInstance } from "fastify";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { domainParamsSchema } from "./schema.ts";

const MAX_DAYS = 366;
const day = { type: "string", format: "date" } as const;
const count = { type: "integer", minimum: 0 } as const;
const rate = { type: "number", minimum: 0, maximum: 1 } as const;

const dmarcQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    days: {
      type: "integer",
      minimum: 1,
      maximum: MAX_DAYS,
      default: 30,
      description: "How many days back, by report day (UTC), today included",
    },
  },
} as const;

const sourceSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "sourceIp",
    "messages",
    "passed",
    "dkimAligned",
    "spfAligned",
    "passRate",
    "reporters",
    "lastSeen",
  ],
  properties: {
    sourceIp: { type: "string", description: "The address receivers saw the mail come from" },
    messages: count,
    passed: { ...count, description: "Messages that passed DMARC: aligned DKIM or aligned SPF" },
    dkimAligned: count,
    spfAligned: count,
    passRate: rate,
    reporters: { type: "array", items: { type: "string" }, description: "The receivers that reported it" },
    lastSeen: day,
  },
} as const;

const dmarcSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "domain",
    "reportAddress",
    "from",
    "to",
    "reports",
    "messages",
    "passed",
    "passRate",
    "sources",
    "failingSources",
  ],
  properties: {
    domain: { type: "string" },
    reportAddress: {
      type: "string",
      description: "Where receivers send aggregate reports: the suggested DMARC record's `rua`",
    },
    from: day,
    to: day,
    reports: { ...count, description: "Aggregate reports received for the period" },
    messages: count,
    passed: count,
    passRate: { ...rate, type: ["number", "null"], description: "Null when no report covers the period" },
    sources: {
      type: "array",
      items: sourceSchema,
      description: "Every source by volume (at most 100)",
    },
    failingSources: {
      type: "array",
      items: sourceSchema,
      description: "Sources with messages failing DMARC, most failures first (a spoofer, a forgotten sender)",
    },
  },
} as const;

/**
 * GET /v1/domains/{domain}/dmarc (issue 29): what receivers' DMARC aggregate reports say about the domain's
 * mail. The reports arrive at the bounce receiver and are stored by the `process_report` job
 * (core/src/domains/dmarc); this only reads. Scope `domains`, like the domain's other reads.
 */
export function dmarcRoutes(
  parent: FastifyInstance,
  deps: ApiDeps,
  domainOf: (db: Queryable, account: string, param: string) => Promise<DomainRecord>,
): void {
  const typed = parent.withTypeProvider<ApiTypeProvider>();
  const reads = readsOf(deps);
  typed.get(
    "/v1/domains/:domain/dmarc",
    {
      config: { scope: "domains" as const },
      schema: {
        summary: "Read the DMARC pass rates and failing sources receivers reported for the domain",
        params: domainParamsSchema,
        querystring: dmarcQuerySchema,
        response: { 200: dmarcSchema, ...errors },
      },
    },
    async (request) =>
      reads.read(async (db) => {
        const domain = await domainOf(db, request.apiKey.account, request.params.domain);
        const now = deps.now?.() ?? new Date();
        const summary = await getDmarcSummary(db, domain.id, { days: request.query.days ?? 30, now });
        return { domain: domain.name, reportAddress: `dmarc@${domain.returnPathDomain}`, ...summary };
      }),
  );
}
