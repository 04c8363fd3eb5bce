import {
  type DomainRecord,
  getDomainById,
  makeTxtLookup,
  requestRotation,
  rotateDomain,
  rotationPolicyFor,
  setRotationInterval,
} from "@mailroom/core/domains";
import { MailroomError } from "@mailroom/core/errors";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import type { ApiDeps } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors } from "../../../schemas.ts";
import { notFound, presentDomain } from "./present.ts";
import { domainParamsSchema, domainSchema, rotateBodySchema, updateDomainBodySchema } from "./schema.ts";

// The rotate route looks the new key up at once, as the worker would; a slow resolver must not hold it long.
const DNS_TIMEOUT_MS = 2_000;

/**
 * The DKIM rotation routes of /v1/domains (issue 29): the interval (PATCH) and rotate-now. Both go through
 * core's one decider (core/src/domains/rotation); the route only records the request and runs it once.
 */
export function dkimRoutes(
  parent: FastifyInstance,
  deps: ApiDeps,
  domainOf: (account: string, param: string) => Promise<DomainRecord>,
): void {
  const typed = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "domains" as const };
  const rotation = {
    db: deps.pool,
    kek: deps.kek,
    lookup: makeTxtLookup({ servers: deps.config.dns.servers, timeoutMs: DNS_TIMEOUT_MS, tries: 1 }),
    policy: rotationPolicyFor(deps.config.delivery.retry.horizonSeconds),
  };
  const reread = async (domain: DomainRecord) => {
    const current = await getDomainById(deps.pool, domain.id);
    if (!current) throw notFound(domain.name);
    return presentDomain(current);
  };

  typed.patch(
    "/v1/domains/:domain",
    {
      config,
      schema: {
        summary: "Change a domain's settings: its DKIM rotation interval",
        params: domainParamsSchema,
        body: updateDomainBodySchema,
        response: { 200: domainSchema, ...errors },
      },
    },
    async (request) => {
      const domain = await domainOf(request.apiKey.account, request.params.domain);
      const audit = { by: auditContextOf(request), account: domain.account, domain: domain.name };
      await setRotationInterval(deps.pool, domain.id, request.body.dkimRotation.intervalDays, audit);
      return reread(domain);
    },
  );

  typed.post(
    "/v1/domains/:domain/dkim/rotate",
    {
      config,
      schema: {
        summary:
          "Rotate the DKIM keys now: a new key under a new selector to publish; it signs once DNS serves it",
        params: domainParamsSchema,
        body: rotateBodySchema,
        response: { 200: domainSchema, ...errors },
      },
    },
    async (request) => {
      const domain = await domainOf(request.apiKey.account, request.params.domain);
      const compromised = request.body?.compromised ?? false;
      if (domain.status !== "verified" && !compromised) {
        throw new MailroomError(
          "domain_not_verified",
          `${domain.name} is not verified: it signs nothing yet.`,
        );
      }
      const now = deps.now?.() ?? new Date();
      const audit = { by: auditContextOf(request), account: domain.account, domain: domain.name };
      const result = await requestRotation(deps.pool, domain.id, { compromised, now }, audit);
      if (result === "already_rotating") {
        const pending = domain.dkimKeys.filter((k) => k.state === "pending").map((k) => k.selector);
        throw new MailroomError(
          "conflict",
          `A rotation of ${domain.name} is under way: ${pending.join(", ")} signs once DNS serves it.`,
        );
      }
      await rotateDomain(rotation, domain.id, now);
      request.log.info({ domainId: domain.id, compromised }, "DKIM rotation requested");
      return reread(domain);
    },
  );
}
