/**
 * Debian's Postfix as the relay in front of Mailroom, for tests of bounces that come later: a private
 * instance (`postfix -c`, its own queue and ports, nothing of the system's mail setup touched) that accepts
 * mail from loopback, relays it to a sink, and when the sink refuses a recipient sends the genuine DSN Postfix
 * writes to the envelope sender, routing the bounce domains to Mailroom's receiver. Needs root and the
 * `postfix` package; `postfixUnavailable()` says why not.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createConnection } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./ports.ts";

export interface PostfixRelay {
  /** smtp://127.0.0.1:<port>, for MAILROOM_SMTP_URL. */
  url: string;
  /** Postfix's own log, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/** Why Postfix cannot run here, or undefined when it can. */
export function postfixUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "Postfix needs root (its queue belongs to the postfix user)";
  if (!existsSync("/usr/sbin/postfix")) return "/usr/sbin/postfix is missing: run make system-packages";
  return undefined;
}

async function waitForPort(port: number, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`postfix did not listen on 127.0.0.1:${port} within ${limitMs} ms`);
}

/** Debian's master.cf with smtpd on `listen` and chroot off (the private queue has no jail). */
function masterCf(listen: string): string {
  return readFileSync("/etc/postfix/master.cf", "utf8")
    .split("\n")
    .map((line) => {
      const f = line.split(/\s+/);
      if (line.startsWith("#") || /^\s/.test(line) || f.length < 8) return line;
      f[4] = "n";
      if (f[0] === "smtp" && f[1] === "inet") f[0] = listen;
      return f.join(" ");
    })
    .join("\n");
}

/** Postfix as a legacy app's local relay into Mailroom's submission door: SASL login with an API key, over TLS. */
export interface SaslRelayhost {
  port: number;
  /** `starttls` (587-style) or `tls`: TLS from the first byte (465-style, Postfix's wrapper mode). */
  mode: "starttls" | "tls";
  user: string;
  password: string;
  /** The CA the submission certificate is checked against (Postfix `secure` level, name `localhost`). */
  caFile: string;
}

function saslRelay(to: SaslRelayhost): string[] {
  const next = `[localhost]:${to.port}`;
  return [
    `relayhost = ${next}`,
    // localhost from /etc/hosts: the certificate's name, which the `secure` level checks.
    "smtp_host_lookup = native",
    "smtp_sasl_auth_enable = yes",
    `smtp_sasl_password_maps = inline:{ ${next}=${to.user}:${to.password} }`,
    "smtp_sasl_security_options = noanonymous",
    "smtp_sasl_mechanism_filter = plain",
    "smtp_tls_security_level = secure",
    "smtp_tls_secure_cert_match = nexthop",
    `smtp_tls_CAfile = ${to.caFile}`,
    ...(to.mode === "tls" ? ["smtp_tls_wrappermode = yes"] : []),
  ];
}

export async function startPostfixRelay(options: {
  /** Where every message goes (the recipients' "MX"): 127.0.0.1:<port>. */
  sinkPort: number;
  /** Bounce domains whose mail (the DSNs) goes to Mailroom's receiver at 127.0.0.1:<receiverPort>. */
  bounceDomains: string[];
  receiverPort: number;
  /** Relay everything to Mailroom's submission door instead of the sink. */
  relayhost?: SaslRelayhost;
}): Promise<PostfixRelay> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-test-postfix-"));
  await chmod(dir, 0o755);
  const [etc, data, queue] = ["etc", "data", "queue"].map((d) => path.join(dir, d)) as [
    string,
    string,
    string,
  ];
  for (const d of [etc, data, queue]) await mkdir(d, { recursive: true });
  const port = await freePort();
  const transports = options.bounceDomains.map((d) => `${d}=smtp:[127.0.0.1]:${options.receiverPort}`);
  const logFile = path.join(dir, "maillog");
  await writeFile(
    path.join(etc, "main.cf"),
    [
      "compatibility_level = 3.6",
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      "mail_owner = postfix",
      "setgid_group = postdrop",
      "myhostname = relay.postfix.test",
      "mydestination =",
      "local_transport = error:no local delivery",
      "inet_interfaces = 127.0.0.1",
      "inet_protocols = ipv4",
      "mynetworks = 127.0.0.0/8",
      "smtpd_relay_restrictions = permit_mynetworks, reject",
      ...(options.relayhost
        ? saslRelay(options.relayhost)
        : [`relayhost = [127.0.0.1]:${options.sinkPort}`, "smtp_tls_security_level = none"]),
      ...(transports.length > 0 ? [`transport_maps = inline:{ ${transports.join(", ")} }`] : []),
      "smtpd_tls_security_level = none",
      `maillog_file = ${logFile}`,
      `maillog_file_prefixes = ${dir}`,
      "",
    ].join("\n"),
  );
  await writeFile(path.join(etc, "master.cf"), masterCf(`127.0.0.1:${port}`));
  const id = (flag: "-u" | "-g") => Number(execFileSync("id", [flag, "postfix"]).toString().trim());
  await chown(data, id("-u"), id("-g"));
  const postfix = (command: string) =>
    execFileSync("/usr/sbin/postfix", ["-c", etc, command], { stdio: ["ignore", "pipe", "pipe"] });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  postfix("set-permissions");
  try {
    postfix("start");
  } catch (error) {
    throw new Error(`postfix did not start: ${(error as Error).message}\n${log().slice(-2000)}`);
  }
  await waitForPort(port);
  return {
    url: `smtp://127.0.0.1:${port}`,
    log,
    stop: async () => {
      try {
        postfix("stop");
      } catch {
        // already stopped
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
