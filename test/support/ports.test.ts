import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./ports.ts";

describe("freePort", () => {
  it("hands out distinct ports below the kernel's ephemeral range, skipping ones in use", async () => {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const first = await freePort();
    // Hold the next candidate: freePort must pass over it.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(first + 1, "127.0.0.1", resolve));
    const ports = [first];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    held.close();
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports).not.toContain(first + 1);
    for (const port of ports) expect(port).toBeLessThan(Number(low));
  });
});
