import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { Resolver } from "node:dns/promises";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports.ts";

/** Debian's nsd (authoritative), unbound (validating resolver) and ldns-utils (keys, signing). */
export const DNSSEC_TOOLS = [
  "/usr/sbin/nsd",
  "/usr/sbin/unbound",
  "/usr/bin/ldns-signzone",
  "/usr/bin/ldns-keygen",
];
export const dnssecToolsMissing = DNSSEC_TOOLS.filter((tool) => !existsSync(tool));

export interface DnssecDns {
  /** The validating resolver, `127.0.0.1:PORT`: what `MAILROOM_DNS_SERVERS` names. */
  address: string;
  /** nsd itself: the same signed answers, never with the AD bit (an authoritative server vouches for none). */
  authoritative: string;
  close(): Promise<void>;
}

const ZONE = "dane.test";

async function waitUntilAnswering(address: string, name: string) {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([address]);
  for (let tries = 0; ; tries += 1) {
    try {
      await resolver.resolve4(name);
      return;
    } catch (error) {
      if (tries > 40) throw new Error(`the DNSSEC test resolver never answered: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The zone `dane.test` with `records` (zone-file lines relative to it), signed with fresh keys
 * (ldns-signzone), served by nsd on one loopback port, and unbound on another validating it with the zone's
 * DS as its trust anchor: answers come with the AD bit, and a bogus one as SERVFAIL, as on the Internet.
 */
export async function startDnssecDns(records: string[]): Promise<DnssecDns> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-dnssec-"));
  const [authPort, resolverPort] = [await freePort(), await freePort()];
  const zoneFile = path.join(dir, `${ZONE}.zone`);
  await writeFile(
    zoneFile,
    [
      `$ORIGIN ${ZONE}.`,
      "$TTL 300",
      `@ IN SOA ns.${ZONE}. admin.${ZONE}. 1 3600 600 86400 300`,
      `@ IN NS ns.${ZONE}.`,
      "ns IN A 127.0.0.1",
      ...records,
      "",
    ].join("\n"),
  );
  const keygen = (...args: string[]) =>
    execFileSync("/usr/bin/ldns-keygen", ["-a", "ECDSAP256SHA256", ...args, ZONE], { cwd: dir })
      .toString()
      .trim();
  const ksk = keygen("-k");
  const zsk = keygen();
  execFileSync("/usr/bin/ldns-signzone", ["-o", ZONE, zoneFile, zsk, ksk], { cwd: dir });
  await writeFile(
    path.join(dir, "nsd.conf"),
    [
      "server:",
      `  ip-address: 127.0.0.1@${authPort}`,
      "  do-ip6: no",
      '  username: ""',
      '  chroot: ""',
      `  zonesdir: "${dir}"`,
      `  pidfile: "${dir}/nsd.pid"`,
      `  zonelistfile: "${dir}/zone.list"`,
      `  xfrdfile: "${dir}/xfrd.state"`,
      `  xfrdir: "${dir}"`,
      `  logfile: "${dir}/nsd.log"`,
      "  server-count: 1",
      "remote-control:",
      "  control-enable: no",
      "zone:",
      `  name: ${ZONE}`,
      `  zonefile: "${zoneFile}.signed"`,
      "",
    ].join("\n"),
  );
  await writeFile(
    path.join(dir, "unbound.conf"),
    [
      "server:",
      "  interface: 127.0.0.1",
      `  port: ${resolverPort}`,
      "  do-ip6: no",
      '  username: ""',
      '  chroot: ""',
      `  directory: "${dir}"`,
      `  pidfile: "${dir}/unbound.pid"`,
      "  use-syslog: no",
      "  num-threads: 1",
      "  so-reuseport: no",
      "  do-not-query-localhost: no",
      // RFC 6761 names are answered locally by default; this one is the test's zone.
      '  local-zone: "test." nodefault',
      `  trust-anchor-file: "${dir}/${ksk}.ds"`,
      '  module-config: "validator iterator"',
      "remote-control:",
      "  control-enable: no",
      "stub-zone:",
      `  name: "${ZONE}"`,
      `  stub-addr: 127.0.0.1@${authPort}`,
      "",
    ].join("\n"),
  );
  const children: ChildProcess[] = [
    spawn("/usr/sbin/nsd", ["-d", "-c", path.join(dir, "nsd.conf")], { stdio: "ignore" }),
    spawn("/usr/sbin/unbound", ["-d", "-c", path.join(dir, "unbound.conf")], { stdio: "ignore" }),
  ];
  const close = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };
  const address = `127.0.0.1:${resolverPort}`;
  try {
    await waitUntilAnswering(address, `ns.${ZONE}`);
  } catch (error) {
    await close();
    throw error;
  }
  return { address, authoritative: `127.0.0.1:${authPort}`, close };
}
