/**
 * The peer of bench/peer/main.ts (issue 21): Debian's Postfix with an OpenDKIM milter, configured in a private
 * directory (`postfix -c`, its own queue and ports, nothing of the system's mail setup touched), receiving
 * mail on a loopback port and relaying it, signed RSA-2048 relaxed/relaxed, to the bench's sink. Postfix keeps
 * its default limits but for what the comparison fixes: destination concurrency 20, no chroot, no TLS, no
 * local delivery.
 *
 * Needs root (Postfix's queue is owned by the `postfix` user and its master drops privileges) and the
 * `postfix` and `opendkim` packages; `postfixPeerUnavailable()` says why not when it cannot run.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createConnection } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../test/support/ports.ts";

export interface PostfixPeer {
  /** Where clients submit: smtp://127.0.0.1:<port>. */
  url: string;
  /** CPU used so far by the Postfix instance (master, its live children and the reaped ones) and OpenDKIM, ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

export interface PostfixPeerOptions {
  /** The sink Postfix relays to: 127.0.0.1:<port>. */
  sinkPort: number;
  domain: string;
  selector: string;
  privateKeyPem: string;
  say(line: string): void;
}

/** Why the peer cannot run here, or undefined when it can. */
export function postfixPeerUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the Postfix peer needs root (its queue belongs to the postfix user)";
  for (const binary of ["/usr/sbin/postfix", "/usr/sbin/opendkim"]) {
    if (!existsSync(binary)) {
      return `${binary} is missing: install Debian's postfix and opendkim packages (make system-packages)`;
    }
  }
  return undefined;
}

async function waitForPort(port: number, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${limitMs} ms`);
    await sleep(100);
  }
}

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** utime, stime, cutime, cstime of a process, in ms; its parent id. */
function processTimes(pid: number): { ms: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces: the fields that follow start after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return { ms: (ticks * 1000) / TICKS_PER_SECOND, ppid: Number(fields[1]) };
  } catch {
    return undefined; // exited meanwhile: its time is now in its parent's cutime/cstime
  }
}

/** CPU of `root` and every live descendant, ms. Reaped children are in their parent's cutime/cstime. */
function treeCpuMs(root: number): number {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => ({ pid: Number(name), times: processTimes(Number(name)) }));
  const inTree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (p.times && !inTree.has(p.pid) && inTree.has(p.times.ppid)) {
        inTree.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => inTree.has(p.pid)).reduce((sum, p) => sum + (p.times?.ms ?? 0), 0);
}

/** Debian's master.cf with the smtpd service moved to `listen` and chroot off for every service. */
function masterCf(listen: string): string {
  return readFileSync("/etc/postfix/master.cf", "utf8")
    .split("\n")
    .map((line) => {
      if (line.startsWith("#") || /^\s/.test(line) || line.trim() === "") return line;
      const f = line.split(/\s+/);
      if (f.length < 8) return line;
      f[4] = "n"; // chroot: the private queue has no jail set up
      if (f[0] === "smtp" && f[1] === "inet") f[0] = listen;
      return f.join(" ");
    })
    .join("\n");
}

export async function startPostfixPeer(options: PostfixPeerOptions): Promise<PostfixPeer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-bench-postfix-"));
  await chmod(dir, 0o755);
  const etc = path.join(dir, "etc");
  const data = path.join(dir, "data");
  const queue = path.join(dir, "queue");
  const dkimDir = path.join(dir, "opendkim");
  for (const d of [etc, data, queue, dkimDir]) await mkdir(d, { recursive: true });
  const [smtpPort, milterPort] = [await freePort(), await freePort()];
  const id = (flag: "-u" | "-g", user: string) => Number(execFileSync("id", [flag, user]).toString().trim());

  // OpenDKIM: one domain, one key, relaxed/relaxed; the key readable by the opendkim user only.
  const keyFile = path.join(dkimDir, "dkim.key");
  await writeFile(keyFile, options.privateKeyPem, { mode: 0o600 });
  await chown(keyFile, id("-u", "opendkim"), id("-g", "opendkim"));
  await chown(dkimDir, id("-u", "opendkim"), id("-g", "opendkim"));
  const dkimConf = path.join(dir, "opendkim.conf");
  await writeFile(
    dkimConf,
    [
      "Syslog no",
      "Mode s",
      "Canonicalization relaxed/relaxed",
      "SignatureAlgorithm rsa-sha256",
      `Domain ${options.domain}`,
      `Selector ${options.selector}`,
      `KeyFile ${keyFile}`,
      // The key lives under the system's temporary directory, which other users can write.
      "RequireSafeKeys false",
      `Socket inet:${milterPort}@127.0.0.1`,
      "UserID opendkim",
      `PidFile ${path.join(dkimDir, "opendkim.pid")}`,
      "",
    ].join("\n"),
  );
  const opendkim: ChildProcess = spawn("/usr/sbin/opendkim", ["-f", "-x", dkimConf], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let dkimErrors = "";
  opendkim.stderr?.on("data", (chunk: Buffer) => {
    dkimErrors = (dkimErrors + chunk.toString()).slice(-2000);
  });
  await waitForPort(milterPort, "opendkim").catch((error: Error) => {
    throw new Error(`${error.message}: ${dkimErrors}`);
  });

  // Postfix: a private instance relaying everything from loopback to the sink through the milter.
  await writeFile(
    path.join(etc, "main.cf"),
    [
      "compatibility_level = 3.6",
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      "mail_owner = postfix",
      "setgid_group = postdrop",
      "myhostname = peer.bench.test",
      "mydestination =",
      "local_transport = error:no local delivery",
      "inet_interfaces = 127.0.0.1",
      "inet_protocols = ipv4",
      "mynetworks = 127.0.0.0/8",
      "smtpd_relay_restrictions = permit_mynetworks, reject",
      `relayhost = [127.0.0.1]:${options.sinkPort}`,
      "default_destination_concurrency_limit = 20",
      "smtp_tls_security_level = none",
      "smtpd_tls_security_level = none",
      `smtpd_milters = inet:127.0.0.1:${milterPort}`,
      "milter_default_action = tempfail",
      `maillog_file = ${path.join(dir, "maillog")}`,
      `maillog_file_prefixes = ${dir}`,
      "",
    ].join("\n"),
  );
  await writeFile(path.join(etc, "master.cf"), masterCf(`127.0.0.1:${smtpPort}`));
  await chown(data, id("-u", "postfix"), id("-g", "postfix"));
  const postfix = (command: string) =>
    execFileSync("/usr/sbin/postfix", ["-c", etc, command], { stdio: ["ignore", "pipe", "pipe"] });
  postfix("set-permissions");
  try {
    postfix("start");
  } catch (error) {
    const log = existsSync(path.join(dir, "maillog")) ? readFileSync(path.join(dir, "maillog"), "utf8") : "";
    throw new Error(`postfix did not start: ${(error as Error).message}\n${log.slice(-2000)}`);
  }
  await waitForPort(smtpPort, "postfix smtpd");
  const masterPid = Number(readFileSync(path.join(queue, "pid/master.pid"), "utf8").trim());
  options.say(
    `› Postfix peer up (master pid ${masterPid}) on smtp://127.0.0.1:${smtpPort}, OpenDKIM milter on ${milterPort}, relaying to the sink`,
  );

  return {
    url: `smtp://127.0.0.1:${smtpPort}`,
    cpuMs: () => treeCpuMs(masterPid) + (opendkim.pid ? treeCpuMs(opendkim.pid) : 0),
    stop: async () => {
      try {
        postfix("stop");
      } catch {
        // already stopped
      }
      opendkim.kill("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
  };
}
