import { expect } from "vitest";
import type { TestDnsServer } from "./dns-server.ts";
import type { ApiStack } from "./stack.ts";

/** A DNS record as `POST /v1/domains` lists it. */
export interface DomainRecord {
  purpose: string;
  type: string;
  name: string;
  value: string;
  strings: string[];
  status?: string;
}

/**
 * Adds a domain through the API, publishes every record it asks for on the loopback DNS server (the SPF TXT
 * beside the bounce domain's MX, which share a name), verifies it and answers its records after verification.
 */
export async function publishAndVerify(
  api: ApiStack,
  dns: TestDnsServer,
  key: string,
  name: string,
): Promise<DomainRecord[]> {
  const created = await api.request("POST", "/v1/domains", { key, body: { name } });
  expect(created.status, created.text).toBe(201);
  const records = created.json.records as DomainRecord[];
  const mx = records.find((r) => r.type === "MX");
  const [priority = "10", exchange = ""] = (mx?.value ?? "").split(" ");
  const mxRecord = { type: "MX" as const, priority: Number(priority), exchange };
  if (mx) dns.setRecords(mx.name, [mxRecord]);
  for (const record of records.filter((r) => r.type === "TXT")) {
    const withMx = mx && record.name === mx.name ? [mxRecord] : [];
    dns.setRecords(record.name, [{ type: "TXT", strings: record.strings }, ...withMx]);
  }
  const verified = await api.request("POST", `/v1/domains/${name}/verify`, { key });
  expect(verified.json.status, verified.text).toBe("verified");
  return verified.json.records as DomainRecord[];
}
