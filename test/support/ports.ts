import { readFileSync } from "node:fs";
import { createServer } from "node:net";

// A port handed to another process stays free only until that process listens on it. A port from the
// kernel's ephemeral range (listen on 0) can be taken in the meantime by any outgoing connection on the
// machine — a Postgres client, an SMTP client — and a CI run failed that way (EADDRINUSE in `make run`).
// So ports come from below the ephemeral range, where the kernel never assigns one by itself; each vitest
// worker draws from its own slice, so two workers never hand out the same port, and one process never
// hands out a port twice.

const SLICE = 600;
const FIRST = 12_000;

function ephemeralStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > FIRST ? port : 32_768;
  } catch {
    return 32_768;
  }
}

const slices = Math.max(1, Math.floor((ephemeralStart() - FIRST) / SLICE));
// Slice 0 for processes outside the vitest workers (global setup, benches, scripts), the rest for workers.
const pool = Number(process.env.VITEST_POOL_ID);
const slice = Number.isInteger(pool) && pool > 0 && slices > 1 ? 1 + ((pool - 1) % (slices - 1)) : 0;
const start = FIRST + slice * SLICE;
const handedOut = new Set<number>();
let next = Math.floor(Math.random() * SLICE);

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now, for a server a test starts in another process. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = start + (next++ % SLICE);
    if (handedOut.has(port)) continue;
    if (await listenable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(
    `freePort: no free port left in ${start}–${start + SLICE - 1}; stop the servers left running`,
  );
}
