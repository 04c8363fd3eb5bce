import type { Queryable } from "@mailroom/core/db";
import {
  createDomain,
  deleteDomain,
  getDomain,
  listDomains,
  makeTxtLookup,
  normalizeDomainName,
  sendingPathFrom,
  verifyDomain,
} from "@mailroom/core/domains";
import type { FastifyInstance } from "fastify";
import { auditContextOf } from "../../../audit-by.ts";
import { type ApiDeps, readsOf } from "../../../deps.ts";
import { type ApiTypeProvider, errorResponses as errors, noContentResponses } from "../../../schemas.ts";
import { dkimRoutes } from "./dkim.ts";
import { dmarcRoutes } from "./dmarc.ts";
import { notFound, presentDomain } from "./present.ts";
import { createDomainBodySchema, domainListSchema, domainParamsSchema, domainSchema } from "./schema.ts";

// Per try and server; with two tries a dead resolver answers temporary_failure within a few seconds, short
// enough for a caller waiting on the recheck route.
const DNS_TIMEOUT_MS = 2_000;
/**
 * /v1/domains: sending domains, their DKIM keys and DNS records, and verification. Scope `domains`.
 * A `:domain` that cannot be a domain name is a 400 (normalizeDomainName throws), not a 404, so a caller
 * learns that its input is wrong rather than that something is missing.
 */
export function domainRoutes(parent: FastifyInstance, deps: ApiDeps): void {
  const app = parent.withTypeProvider<ApiTypeProvider>();
  const config = { scope: "domains" as const };
  const lookup = makeTxtLookup({ servers: deps.config.dns.servers, timeoutMs: DNS_TIMEOUT_MS });

  /** The account's domain named in the path, or 404 (another account's domain is indistinguishable). */
  const reads = readsOf(deps);

  /** The account's domain named in the path (read through `db`), or 404 (another account's looks the same). */
  const domainOf = async (db: Queryable, account: string, param: string) => {
    const name = normalizeDomainName(param);
    const domain = await getDomain(db, account, name);
    if (!domain) throw notFound(name);
    return domain;
  };

  app.post(
    "/v1/domains",
    {
      config,
      schema: {
        summary: "Add a sending domain: makes its DKIM keys and answers the DNS records to publish",
        body: createDomainBodySchema,
        response: { 201: domainSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { name, algorithms, dkimRotation } = request.body;
      const domain = await createDomain(deps.pool, deps.kek, {
        account: request.apiKey.account,
        name,
        ...(algorithms ? { algorithms } : {}),
        ...(dkimRotation ? { rotationIntervalDays: dkimRotation.intervalDays } : {}),
        records: deps.config.dnsRecords,
        by: auditContextOf(request),
      });
      request.log.info({ domainId: domain.id }, "domain created");
      return reply.code(201).send(presentDomain(domain));
    },
  );

  app.get(
    "/v1/domains",
    {
      config,
      schema: { summary: "List the account's domains", response: { 200: domainListSchema, ...errors } },
    },
    async (request) => ({
      data: (await reads.read((db) => listDomains(db, request.apiKey.account))).map(presentDomain),
    }),
  );

  app.get(
    "/v1/domains/:domain",
    {
      config,
      schema: {
        summary: "Read a domain with its records and their verification",
        params: domainParamsSchema,
        response: { 200: domainSchema, ...errors },
      },
    },
    async (request) =>
      presentDomain(await reads.read((db) => domainOf(db, request.apiKey.account, request.params.domain))),
  );

  app.post(
    "/v1/domains/:domain/verify",
    {
      config,
      schema: {
        summary: "Check the domain's DNS records now and answer the updated domain",
        params: domainParamsSchema,
        response: { 200: domainSchema, ...errors },
      },
    },
    async (request) => {
      const domain = await domainOf(deps.pool, request.apiKey.account, request.params.domain);
      // The outcome (and any domain.verified/failed event) is stored by verifyDomain in one transaction.
      const outcome = await verifyDomain(
        {
          db: deps.pool,
          lookup,
          records: deps.config.dnsRecords,
          sendingPath: sendingPathFrom(deps.config, DNS_TIMEOUT_MS),
          by: auditContextOf(request),
        },
        domain,
      );
      if (!outcome) throw notFound(domain.name);
      request.log.info({ domainId: domain.id, status: outcome.domain.status }, "domain checked");
      return presentDomain(outcome.domain);
    },
  );

  dkimRoutes(parent, deps, (account, param) => domainOf(deps.pool, account, param));
  dmarcRoutes(parent, deps, domainOf);

  app.delete(
    "/v1/domains/:domain",
    {
      config,
      schema: {
        summary: "Delete a domain and its keys",
        params: domainParamsSchema,
        response: noContentResponses,
      },
    },
    async (request, reply) => {
      const name = normalizeDomainName(request.params.domain);
      if (!(await deleteDomain(deps.pool, request.apiKey.account, name, { by: auditContextOf(request) })))
        throw notFound(name);
      request.log.info({ name }, "domain deleted");
      return reply.code(204).send(null);
    },
  );
}
