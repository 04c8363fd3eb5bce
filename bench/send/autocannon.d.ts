// autocannon ships no types; this declares the part of its API the benchmarks use (see its README).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";
  import type { ConnectionOptions } from "node:tls";

  type Context = Record<string, unknown>;

  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called before each request; returns the request to send. */
    setupRequest?: (request: AutocannonRequest, context: Context) => AutocannonRequest;
    /** Called with every complete response. */
    onResponse?: (status: number, body: string, context: Context, headers: Record<string, string>) => void;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds to wait for a response. */
    timeout?: number;
    servername?: string;
    tlsOptions?: ConnectionOptions;
    requests?: AutocannonRequest[];
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
    total: number;
    /** On `requests`: how many were written to a socket, answered or not. */
    sent: number;
  }

  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram;
  }

  interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): AutocannonInstance;

  export default autocannon;
  export type { AutocannonOptions, AutocannonRequest, AutocannonResult };
}
