import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AREAS, CONFIG_DEFAULTS, CONFIG_VARIABLES, ConfigError, loadConfig } from "./config.ts";

describe("config", () => {
  it("documents exactly the variables it reads in .env.example", () => {
    const example = readFileSync(path.resolve(import.meta.dirname, "../../../.env.example"), "utf8");
    const documented = example
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split("=")[0]);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("gives each variable and each top-level key of the config to exactly one area", () => {
    const variables = AREAS.flatMap((area) => Object.keys(area.variables));
    expect(variables.length).toBe(new Set(variables).size);
    expect([...variables].sort()).toEqual([...CONFIG_VARIABLES].sort());
    const keys = AREAS.flatMap((area) => Object.keys(area.build(CONFIG_DEFAULTS)));
    expect(keys.length).toBe(new Set(keys).size);
    expect([...keys].sort()).toEqual(Object.keys(loadConfig({})).sort());
  });

  it("parses the documented defaults, frozen", () => {
    const config = loadConfig({});
    expect(config.api.port).toBe(8443);
    expect(config.database.url).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.api)).toBe(true);
  });

  it("takes the key-encryption key inline (base64), the rest of the config still frozen", () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({ MAILROOM_KEY_ENCRYPTION_KEY: key.toString("base64") });
    expect(config.keyEncryption.key?.equals(key)).toBe(true);
    expect(Object.isFrozen(config.keyEncryption)).toBe(true);
  });

  it("stops on a bad value with a message naming the variable", () => {
    expect(() => loadConfig({ MAILROOM_API_PORT: "eighty" })).toThrow(ConfigError);
    expect(() => loadConfig({ MAILROOM_API_PORT: "eighty" })).toThrow(/MAILROOM_API_PORT.*"eighty"/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ MAILROOM_OTEL_EXPORTER: "jaeger" })).toThrow(/MAILROOM_OTEL_EXPORTER/);
    expect(() => loadConfig({ MAILROOM_TLS_CERT_FILE: "/x.crt" })).toThrow(/MAILROOM_TLS_KEY_FILE/);
    expect(() => loadConfig({ MAILROOM_DNS_CACHE_SECONDS: "5m" })).toThrow(
      /MAILROOM_DNS_CACHE_SECONDS.*"5m"/,
    );
    expect(() => loadConfig({ MAILROOM_DNS_CACHE_SECONDS: "-1" })).toThrow(/MAILROOM_DNS_CACHE_SECONDS/);
  });

  it("keeps finished emails 30 days by default, and refuses a retention shorter than the idempotency window", () => {
    expect(loadConfig({}).limits.emailRetentionDays).toBe(30);
    expect(loadConfig({ MAILROOM_EMAIL_RETENTION_DAYS: "0" }).limits.emailRetentionDays).toBe(0);
    expect(loadConfig({ MAILROOM_EMAIL_RETENTION_DAYS: "1" }).limits.emailRetentionDays).toBe(1);
    expect(() =>
      loadConfig({ MAILROOM_EMAIL_RETENTION_DAYS: "1", MAILROOM_IDEMPOTENCY_RETENTION_HOURS: "48" }),
    ).toThrow(/MAILROOM_EMAIL_RETENTION_DAYS \(1\) must cover MAILROOM_IDEMPOTENCY_RETENTION_HOURS \(48\)/);
  });

  it("caches DNS answers for 300 s by default, and not at all when MAILROOM_DNS_CACHE_SECONDS is 0", () => {
    expect(loadConfig({}).dns.cacheSeconds).toBe(300);
    expect(loadConfig({ MAILROOM_DNS_CACHE_SECONDS: "0" }).dns.cacheSeconds).toBe(0);
    expect(loadConfig({ MAILROOM_DNS_CACHE_SECONDS: "30" }).dns.cacheSeconds).toBe(30);
  });

  it("fetches as many delivery jobs ahead as there are slots unless MAILROOM_WORKER_LOCAL_QUEUE_SIZE says", () => {
    expect(loadConfig({}).worker.localQueueSize).toBe(20);
    expect(loadConfig({ MAILROOM_WORKER_CONCURRENCY: "8" }).worker.localQueueSize).toBe(8);
    expect(loadConfig({ MAILROOM_WORKER_LOCAL_QUEUE_SIZE: "4" }).worker.localQueueSize).toBe(4);
    expect(loadConfig({ MAILROOM_WORKER_LOCAL_QUEUE_SIZE: "" }).worker.localQueueSize).toBe(20);
    expect(() => loadConfig({ MAILROOM_WORKER_LOCAL_QUEUE_SIZE: "0" })).toThrow(
      /MAILROOM_WORKER_LOCAL_QUEUE_SIZE/,
    );
  });

  it("keeps 2 reserved delivery slots unless MAILROOM_WORKER_RESERVED_CONCURRENCY says (0: no reserved lane)", () => {
    expect(loadConfig({}).worker.reservedConcurrency).toBe(2);
    expect(loadConfig({ MAILROOM_WORKER_RESERVED_CONCURRENCY: "0" }).worker.reservedConcurrency).toBe(0);
    expect(loadConfig({ MAILROOM_WORKER_RESERVED_CONCURRENCY: "4" }).worker.reservedConcurrency).toBe(4);
    expect(() => loadConfig({ MAILROOM_WORKER_RESERVED_CONCURRENCY: "-1" })).toThrow(
      /MAILROOM_WORKER_RESERVED_CONCURRENCY/,
    );
  });

  it("runs every worker lane unless MAILROOM_WORKER_LANES lists some (the reserved one only with slots)", () => {
    expect(loadConfig({}).worker.lanes).toEqual(["delivery", "reserved", "background"]);
    expect(loadConfig({}).worker).toMatchObject({ deliverySlots: 22, slots: 30 });
    const reserved = loadConfig({ MAILROOM_WORKER_LANES: "reserved" }).worker;
    expect(reserved).toMatchObject({ lanes: ["reserved"], deliverySlots: 2, slots: 2 });
    const main = loadConfig({ MAILROOM_WORKER_LANES: " background, delivery " }).worker;
    expect(main).toMatchObject({ lanes: ["delivery", "background"], deliverySlots: 20, slots: 28 });
    expect(
      loadConfig({ MAILROOM_WORKER_LANES: "delivery,reserved", MAILROOM_WORKER_RESERVED_CONCURRENCY: "0" })
        .worker.lanes,
    ).toEqual(["delivery"]);
    for (const bad of ["fast", "delivery,delivery", ",", "reserved;background"]) {
      expect(() => loadConfig({ MAILROOM_WORKER_LANES: bad }), bad).toThrow(/MAILROOM_WORKER_LANES/);
    }
    expect(() =>
      loadConfig({ MAILROOM_WORKER_LANES: "reserved", MAILROOM_WORKER_RESERVED_CONCURRENCY: "0" }),
    ).toThrow(/MAILROOM_WORKER_LANES: .*would run nothing/);
  });

  it("treats empty values as unset and lets the environment override program defaults", () => {
    expect(loadConfig({ MAILROOM_API_PORT: "" }).api.port).toBe(8443);
    const relaxed = { MAILROOM_ALLOW_UNVERIFIED_FROM: "true" };
    expect(loadConfig({}, relaxed).sending.allowUnverifiedFrom).toBe(true);
    expect(loadConfig({ MAILROOM_ALLOW_UNVERIFIED_FROM: "false" }, relaxed).sending.allowUnverifiedFrom).toBe(
      false,
    );
  });
});
