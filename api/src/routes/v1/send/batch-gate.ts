import type { ServerResponse } from "node:http";
import type { ApiMetrics } from "@mailroom/core/telemetry";
import type { preParsingAsyncHookHandler } from "fastify";

/**
 * Admits at most `limit` batch requests at a time into body parsing, validation and their commit. The others
 * wait before their body is read: it stays in the kernel's socket buffers (TCP backpressure), not parsed on
 * the heap while a Postgres connection is awaited. Nothing is refused; a waiting request is only later.
 *
 * A slot is held until the response closes, which Node signals once whether the answer was sent (2xx or an
 * error) or the connection dropped; a request whose client leaves while waiting gives up its place in line.
 */
export function createBatchGate(
  limit: number,
  gauge: ApiMetrics["batchRequests"],
): preParsingAsyncHookHandler {
  let admitted = 0;
  const waiting = new Set<() => void>();
  const report = () => {
    gauge.set({ state: "admitted" }, admitted);
    gauge.set({ state: "waiting" }, waiting.size);
  };
  report();

  const release = () => {
    const [next] = waiting;
    if (next) {
      waiting.delete(next);
      next();
    } else admitted--;
    report();
  };

  const admit = (res: ServerResponse) =>
    new Promise<void>((resolve) => {
      // Closed already (the client left during authentication): its 'close' has fired, take no slot.
      if (res.closed) return resolve();
      let held = false;
      const grant = () => {
        held = true;
        resolve();
      };
      res.once("close", () => {
        if (held) release();
        else {
          // Left while waiting: out of the line. The request goes on to wait for a body that never comes;
          // its connection gone, nothing holds it any more.
          waiting.delete(grant);
          report();
          resolve();
        }
      });
      if (admitted < limit) {
        admitted++;
        grant();
      } else waiting.add(grant);
      report();
    });

  return async (_request, reply, payload) => {
    await admit(reply.raw);
    return payload;
  };
}
