import { describe, expect, it } from "vitest";
import { createSsrfGuard, parseCidr, parseCidrList } from "./ssrf.ts";

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

  it("parses CIDR lists and rejects junk", () => {
    expect(parseCidr("10.0.0.0/8")).toEqual(["10.0.0.0", 8, "ipv4"]);
    expect(parseCidr("::1")).toEqual(["::1", 128, "ipv6"]);
    expect(parseCidrList(" 127.0.0.0/8, ::1/128 ,")).toEqual(["127.0.0.0/8", "::1/128"]);
    for (const junk of ["10.0.0.0/33", "localhost", "10.0.0.0/8/1", "::1/x"]) {
      expect(() => parseCidr(junk)).toThrow(/not a CIDR/);
    }
  });
});

describe("SSRF guard: URLs", () => {
  const guard = createSsrfGuard({ allowedCidrs: ["127.0.0.0/8"] });

  it.each([
    ["http://169.254.169.254/latest/meta-data/", /metadata, link-local/],
    ["http://[fd00:ec2::254]/", /metadata, link-local/],
    ["http://metadata.google.internal/computeMetadata/v1/", /metadata host/],
    ["http://[::1]:8080/hook", /private or loopback/],
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
});
