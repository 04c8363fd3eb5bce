import { describe, expect, it } from "vitest";
import { createAddressPolicy, parseCidr, parseCidrList } from "./index.ts";

const strict = createAddressPolicy();
const everything = createAddressPolicy(["0.0.0.0/0", "::/0"]);
const loopbackAllowed = createAddressPolicy(["127.0.0.0/8", "::1/128"]);

describe("address policy: IPv6 addresses that embed an IPv4 one", () => {
  // Each leads to 169.254.169.254 (cloud metadata) or another always-refused IPv4 host.
  it.each([
    ["NAT64 well-known prefix", "64:ff9b::a9fe:a9fe"],
    ["NAT64, dotted", "64:ff9b::169.254.169.254"],
    ["NAT64 local-use prefix", "64:ff9b:1::a9fe:a9fe"],
    ["NAT64 local-use prefix, /48 layout", "64:ff9b:1:a9fe:a9:fe00::"],
    ["6to4", "2002:a9fe:a9fe::1"],
    ["Teredo server", "2001:0:a9fe:a9fe::1"],
    ["Teredo client (inverted)", "2001:0:4136:e378:8000:63bf:5601:5601"],
    ["IPv4-compatible", "::169.254.169.254"],
    ["IPv4-compatible, hex", "::a9fe:a9fe"],
    ["IPv4-mapped", "::ffff:169.254.169.254"],
    ["IPv4-mapped, hex (how URLs print it)", "::ffff:a9fe:a9fe"],
    ["SIIT IPv4-translated", "::ffff:0:a9fe:a9fe"],
    ["6to4 of 0.0.0.0", "2002::1"],
  ])("always refuses %s (%s), even with everything allowed", (_name, address) => {
    expect(strict.refusalOf(address)).toMatch(/metadata, link-local or reserved/);
    expect(everything.refusalOf(address)).toMatch(/metadata, link-local or reserved/);
  });

  it.each([
    "64:ff9b::7f00:1",
    "64:ff9b::10.0.0.1",
    "2002:7f00:1::",
    "2001:0:a00:1::a247:27dd",
    "::ffff:7f00:1",
    "::127.0.0.1",
  ])("refuses %s (an embedded private IPv4) unless that IPv4 is allowed", (address) => {
    expect(strict.refusalOf(address)).toMatch(/private or loopback/);
    expect(everything.refusalOf(address)).toBeUndefined();
  });

  it("judges the embedded IPv4 as the plain one: an allowed loopback stays reachable through NAT64", () => {
    expect(loopbackAllowed.refusalOf("64:ff9b::127.0.0.1")).toBeUndefined();
    expect(loopbackAllowed.refusalOf("64:ff9b::10.0.0.1")).toMatch(/private or loopback/);
  });

  it("lets public IPv4 through the translation prefixes", () => {
    expect(strict.refusalOf("64:ff9b::5db8:d822")).toBeUndefined(); // 93.184.216.34
    expect(strict.refusalOf("2002:5db8:d822::1")).toBeUndefined();
    expect(strict.refusalOf("2001:0:5db8:d822::a247:27dd")).toBeUndefined(); // client 93.184.216.34
  });

  it("keeps IPv6's own loopback and unspecified addresses what they are", () => {
    expect(strict.refusalOf("::1")).toMatch(/private or loopback/);
    expect(loopbackAllowed.refusalOf("::1")).toBeUndefined();
    expect(everything.refusalOf("::")).toMatch(/metadata, link-local or reserved/);
  });

  it("refuses what is not an IP address", () => {
    expect(strict.refusalOf("localhost")).toMatch(/not an IP address/);
    expect(strict.refusalOf("0x7f.1")).toMatch(/not an IP address/);
  });
});

describe("CIDR lists", () => {
  it("parses CIDR lists and rejects junk", () => {
    expect(parseCidr("10.0.0.0/8")).toEqual(["10.0.0.0", 8, "ipv4"]);
    expect(parseCidr("::1")).toEqual(["::1", 128, "ipv6"]);
    expect(parseCidrList(" 127.0.0.0/8, ::1/128 ,")).toEqual(["127.0.0.0/8", "::1/128"]);
    for (const junk of ["10.0.0.0/33", "localhost", "10.0.0.0/8/1", "::1/x"]) {
      expect(() => parseCidr(junk)).toThrow(/not a CIDR/);
    }
  });
});
