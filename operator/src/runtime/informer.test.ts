import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OperatorLogger } from "../controllers/context.ts";
import type { WatchHandle } from "../kube/index.ts";
import { type Informer, startInformer } from "./informer.ts";
import { createOperatorMetrics } from "./metrics.ts";

const warnings: string[] = [];
const log = {
  info: () => {},
  warn: (fields: { err?: Error }, message: string) => warnings.push(`${message}: ${fields.err?.message}`),
  error: () => {},
  debug: () => {},
  child: () => log,
} as unknown as OperatorLogger;

let informer: Informer<unknown> | undefined;
afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  warnings.length = 0;
});

describe("informer", () => {
  it("backs off after a watch the server ends at once with nothing sent, and counts it", async () => {
    const registry = new Registry();
    const metrics = createOperatorMetrics(registry);
    const watchesAt: number[] = [];
    // A server that ends every watch as soon as it opens (the hot loop reopened 615–973 watches in 2 s).
    const ended: WatchHandle = { stop() {}, done: Promise.resolve() };
    informer = startInformer({
      kind: "ApiKey",
      log,
      metrics,
      backoff: { baseMs: 100, maxMs: 1_000 },
      list: async () => ({ items: [], resourceVersion: "1" }),
      watch: async () => {
        watchesAt.push(Date.now());
        return ended;
      },
      onChange: () => {},
    });
    await vi.waitFor(() => expect(watchesAt.length).toBeGreaterThanOrEqual(4), { timeout: 20_000 });
    // Backoff with jitter of at most a fifth: at least 80 + 160 + 320 ms between the first and the fourth watch.
    expect((watchesAt[3] ?? 0) - (watchesAt[0] ?? 0)).toBeGreaterThanOrEqual(560);
    const restarts = await registry.getSingleMetric("mailroom_operator_informer_restarts_total")?.get();
    const short = restarts?.values.find((v) => v.labels.reason === "short_watch");
    expect(short?.value).toBeGreaterThanOrEqual(3);
    expect(warnings[0]).toMatch(/very short watch of ApiKey/);
  });
});
