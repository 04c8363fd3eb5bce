import { describe, expect, it } from "vitest";
import { createSsrfGuard } from "./ssrf.ts";

describe("SSRF guard: addresses", () => {
  const strict = createSsrfGuard();
  const loopbackAllowed = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8", "::1/128", "10.0.0.0/8"] });

  it.each([
    "169.254.169.254",
    "169.254.170.2",
    "169.254.1.1",
    "100.100.100.200",
    "fd00:ec2::254",
    "fe80::1",
    "::ffff:169.254.169.254",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
  ])("always refuses %s, even with a permissive allow-list", (address) => {
    expect(strict.refusalOf(address)).toMatch(/metadata, link-local or reserved/);
    const everything = createSsrfGuard({ allowedCidrs: ["0.0.0.0/0", "::/0"] });
    expect(everything.refusalOf(address)).toMatch(/metadata, link-local or reserved/);
  });

  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",
    "::1",
    "fd12::1",
    "::ffff:10.0.0.1",
  ])("refuses private %s without an allow-list", (address) => {
    expect(strict.refusalOf(address)).toMatch(/private or loopback/);
  });

  it("allows listed private ranges only", () => {
    expect(loopbackAllowed.refusalOf("127.0.0.1")).toBeUndefined();
    expect(loopbackAllowed.refusalOf("::1")).toBeUndefined();
    expect(loopbackAllowed.refusalOf("10.9.8.7")).toBeUndefined();
    expect(loopbackAllowed.refusalOf("192.168.1.1")).toMatch(/private or loopback/);
  });

  it("allows public addresses", () => {
    expect(strict.refusalOf("93.184.216.34")).toBeUndefined();
    expect(strict.refusalOf("2606:4700::1111")).toBeUndefined();
  });
});

describe("SSRF guard: URLs", () => {
  const guard = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] });

  it.each([
    ["http://169.254.169.254/latest/meta-data/", /metadata, link-local/],
    ["http://[fd00:ec2::254]/", /metadata, link-local/],
    ["http://metadata.google.internal/computeMetadata/v1/", /metadata host/],
    ["http://[::1]:8080/hook", /private or loopback/],
    // IPv6 forms of 169.254.169.254: NAT64, 6to4, IPv4-compatible and IPv4-mapped (which URLs print in hex).
    ["http://[64:ff9b::a9fe:a9fe]/", /metadata, link-local/],
    ["http://[2002:a9fe:a9fe::]/", /metadata, link-local/],
    ["http://[::169.254.169.254]/", /metadata, link-local/],
    ["http://[::ffff:169.254.169.254]/", /metadata, link-local/],
    ["http://[::ffff:10.0.0.1]/", /private or loopback/],
    ["ftp://example.com/", /https or http/],
    ["https://user:pw@example.com/", /credentials/],
    ["not a url", /not a valid URL/],
  ])("refuses %s", async (url, reason) => {
    await expect(guard.resolveTarget(url)).rejects.toThrow(reason);
  });

  it("pins an allowed IP literal and keeps no SNI name for it", async () => {
    const target = await guard.resolveTarget("http://127.0.0.1:9/hook?x=1");
    expect(target).toMatchObject({ address: "127.0.0.1", family: 4, servername: undefined });
    expect(target.url.pathname).toBe("/hook");
  });

  it("refuses at connect time a name that resolves to an address embedding a refused IPv4", async () => {
    const rebinding = createSsrfGuard({
      allowedCidrs: ["127.0.0.0/8"],
      resolve: async () => [{ address: "64:ff9b::a9fe:a9fe", family: 6 }],
    });
    await expect(rebinding.resolveTarget("https://hooks.example.test/")).rejects.toThrow(
      /hooks\.example\.test: 64:ff9b::a9fe:a9fe is a metadata, link-local or reserved address/,
    );
  });
});
