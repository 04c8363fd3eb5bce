import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import nodemailer from "nodemailer";
import type { ClientSpec, MessageSpec } from "./messages.ts";

const run = promisify(execFile);
const PROGRAMS = path.join(import.meta.dirname, "programs");

/** Where the run keeps its files (specs, raw messages) and the compiled clients' cache. */
export interface ClientContext {
  dir: string;
  cache: string;
  /** A PKCS12 trust store holding the submission CA, for Java. */
  trustStore: string;
}

export interface Client {
  name: string;
  /** Why the client cannot run here (its runtime or package is missing), or undefined when it can. */
  missing(): string | undefined;
  send(spec: ClientSpec, context: ClientContext): Promise<void>;
}

const needs =
  (...paths: string[]) =>
  () =>
    paths.find((p) => !existsSync(p)) && `${paths.join(", ")} missing`;
const hasCommand = (command: string) => () =>
  ["/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/go/bin"].some((d) =>
    existsSync(path.join(d, command)),
  )
    ? undefined
    : `${command} is not installed`;

async function specFile(spec: ClientSpec, context: ClientContext, name: string): Promise<string> {
  const file = path.join(context.dir, `${name}-${spec.mode}.json`);
  await writeFile(file, JSON.stringify(spec));
  return file;
}

/** A program that reads the JSON spec and sends every message itself. */
function program(
  name: string,
  command: string,
  script: (c: ClientContext) => string[],
  missing: Client["missing"],
) {
  return {
    name,
    missing,
    async send(spec: ClientSpec, context: ClientContext) {
      const { stdout } = await run(command, [...script(context), await specFile(spec, context, name)], {
        timeout: 120_000,
      });
      if (!stdout.includes("sent")) throw new Error(`${name} said: ${stdout}`);
    },
  } satisfies Client;
}

/** A message as a person writes it for a tool that sends a file (msmtp, curl): raw UTF-8 headers, 8-bit text. */
export function handWritten(spec: ClientSpec, m: MessageSpec, attachment?: Buffer): string {
  const headers = [
    `From: ${spec.from}`,
    `To: ${m.to.join(", ")}`,
    ...(m.cc.length ? [`Cc: ${m.cc.join(", ")}`] : []),
  ];
  headers.push(`Subject: ${m.subject}`, "MIME-Version: 1.0");
  if (!m.attachment || !attachment) {
    return `${[...headers, "Content-Type: text/plain; charset=utf-8", "", m.text].join("\n")}\n`;
  }
  const encoded = attachment.toString("base64").replace(/.{76}/g, "$&\n");
  return `${[
    ...headers,
    'Content-Type: multipart/mixed; boundary="part"',
    "",
    "--part",
    "Content-Type: text/plain; charset=utf-8",
    "",
    m.text,
    "--part",
    `Content-Type: ${m.attachment.contentType}`,
    "Content-Transfer-Encoding: base64",
    `Content-Disposition: attachment; filename="${m.attachment.filename}"`,
    "",
    encoded,
    "--part--",
  ].join("\n")}\n`;
}

const recipients = (m: MessageSpec) => [...m.to, ...m.cc, ...m.bcc];
const fromAddress = (spec: ClientSpec) => /<([^>]+)>/.exec(spec.from)?.[1] ?? spec.from;
const py = (file: string) => () => [path.join(PROGRAMS, file)];

export const CLIENTS: Client[] = [
  program("python-send-message", "/usr/bin/python3", py("python_send_message.py"), hasCommand("python3")),
  program("python-sendmail", "/usr/bin/python3", py("python_sendmail.py"), hasCommand("python3")),
  program("django", "/usr/bin/python3", py("django_send.py"), needs("/usr/lib/python3/dist-packages/django")),
  program(
    "phpmailer",
    "php",
    () => [path.join(PROGRAMS, "phpmailer.php")],
    () => hasCommand("php")() ?? needs("/usr/share/php/libphp-phpmailer/autoload.php")(),
  ),
  program(
    "ruby-mail",
    "ruby",
    () => [path.join(PROGRAMS, "ruby_mail.rb")],
    () => hasCommand("ruby")() ?? needs("/usr/lib/ruby/vendor_ruby/mail.rb")(),
  ),
  program("go-net-smtp", "sh", (c) => ["-c", `exec "${c.cache}/gosmtp" "$0"`], hasCommand("go")),
  {
    name: "jakarta-mail",
    missing: () => hasCommand("javac")() ?? hasCommand("mvn")(),
    async send(spec, context) {
      // The JDK has no JSON parser: the spec goes as key=value lines, one block per message.
      const line = (k: string, v: string | number) => `${k}=${String(v).replace(/\n/g, "\\n")}`;
      const lines = ["host", "port", "mode", "user", "key", "from"].map((k) =>
        line(k, spec[k as keyof ClientSpec] as string),
      );
      for (const m of spec.messages) {
        lines.push(
          "--",
          line("to", m.to.join(",")),
          line("cc", m.cc.join(",")),
          line("bcc", m.bcc.join(",")),
        );
        lines.push(line("subject", m.subject), line("text", m.text));
        if (m.attachment) {
          lines.push(
            line("attachmentPath", m.attachment.path),
            line("attachmentName", m.attachment.filename),
          );
          lines.push(line("attachmentType", m.attachment.contentType));
        }
      }
      const file = path.join(context.dir, `jakarta-${spec.mode}.txt`);
      await writeFile(file, `${lines.join("\n")}\n`);
      const classpath = `${context.cache}/jakarta:${context.cache}/jakarta-lib/*`;
      const trust = [
        `-Djavax.net.ssl.trustStore=${context.trustStore}`,
        "-Djavax.net.ssl.trustStorePassword=changeit",
      ];
      const { stdout } = await run("java", [...trust, "-cp", classpath, "Send", file], { timeout: 120_000 });
      if (!stdout.includes("sent")) throw new Error(`jakarta said: ${stdout}`);
    },
  },
  {
    name: "nodemailer",
    missing: () => undefined,
    async send(spec) {
      const transport = nodemailer.createTransport({
        host: spec.host,
        port: spec.port,
        secure: spec.mode === "tls",
        requireTLS: spec.mode === "starttls",
        tls: { ca: await import("node:fs/promises").then((fs) => fs.readFile(spec.ca)) },
        auth: { user: spec.user, pass: spec.key },
      });
      for (const m of spec.messages) {
        await transport.sendMail({
          from: spec.from,
          to: m.to,
          cc: m.cc,
          bcc: m.bcc,
          subject: m.subject,
          text: m.text,
          attachments: m.attachment
            ? [
                {
                  filename: m.attachment.filename,
                  path: m.attachment.path,
                  contentType: m.attachment.contentType,
                },
              ]
            : [],
        });
      }
      transport.close();
    },
  },
  {
    name: "swaks",
    missing: hasCommand("swaks"),
    async send(spec) {
      for (const m of spec.messages) {
        const args = [
          "--server",
          `${spec.host}:${spec.port}`,
          spec.mode === "tls" ? "--tls-on-connect" : "--tls",
        ];
        args.push("--tls-verify", "--tls-ca-path", spec.ca, "--auth", "PLAIN", "--auth-user", spec.user);
        args.push("--auth-password", spec.key, "--from", fromAddress(spec), "--to", recipients(m).join(","));
        args.push("--header", `From: ${spec.from}`, "--header", `To: ${m.to.join(", ")}`);
        if (m.cc.length) args.push("--add-header", `Cc: ${m.cc.join(", ")}`);
        args.push("--header", `Subject: ${m.subject}`, "--body", m.text);
        if (m.attachment) {
          args.push("--attach-type", m.attachment.contentType, "--attach-name", m.attachment.filename);
          args.push("--attach", `@${m.attachment.path}`);
        } else {
          args.push("--add-header", "Content-Type: text/plain; charset=utf-8");
        }
        await run("swaks", args, { timeout: 60_000 });
      }
    },
  },
  {
    name: "curl",
    missing: hasCommand("curl"),
    async send(spec, context) {
      for (const m of spec.messages) {
        const scheme = spec.mode === "tls" ? "smtps" : "smtp";
        const args = [
          "-sS",
          "--url",
          `${scheme}://${spec.host}:${spec.port}`,
          "--ssl-reqd",
          "--cacert",
          spec.ca,
        ];
        args.push("--user", `${spec.user}:${spec.key}`, "--mail-from", fromAddress(spec));
        for (const r of recipients(m)) args.push("--mail-rcpt", r);
        if (m.attachment) {
          // curl's own MIME (-F), as its documentation shows for mail with an attachment.
          const text = path.join(context.dir, `curl-${spec.mode}-text.txt`);
          await writeFile(text, m.text);
          args.push(
            "-H",
            `From: ${spec.from}`,
            "-H",
            `To: ${m.to.join(", ")}`,
            "-H",
            `Subject: ${m.subject}`,
          );
          args.push("-F", `=<${text};type=text/plain; charset=utf-8;encoder=quoted-printable`);
          args.push(
            "-F",
            `=@${m.attachment.path};type=${m.attachment.contentType};filename=${m.attachment.filename};encoder=base64`,
          );
        } else {
          const file = path.join(context.dir, `curl-${spec.mode}-${m.kind}.eml`);
          await writeFile(file, handWritten(spec, m));
          args.push("--upload-file", file);
        }
        await run("curl", args, { timeout: 60_000 });
      }
    },
  },
  {
    name: "msmtp",
    missing: hasCommand("msmtp"),
    async send(spec, context) {
      const { readFile } = await import("node:fs/promises");
      for (const m of spec.messages) {
        const file = path.join(context.dir, `msmtp-${spec.mode}-${m.kind}.eml`);
        await writeFile(
          file,
          handWritten(spec, m, m.attachment ? await readFile(m.attachment.path) : undefined),
        );
        const args = [
          `--host=${spec.host}`,
          `--port=${spec.port}`,
          "--tls=on",
          `--tls-starttls=${spec.mode === "starttls" ? "on" : "off"}`,
        ];
        args.push(
          `--tls-trust-file=${spec.ca}`,
          "--auth=plain",
          `--user=${spec.user}`,
          `--passwordeval=cat ${context.dir}/key`,
        );
        args.push(`--from=${fromAddress(spec)}`, "--", ...recipients(m));
        await run("sh", ["-c", `exec msmtp "$@" < "${file}"`, "msmtp", ...args], { timeout: 60_000 });
      }
    },
  },
];
