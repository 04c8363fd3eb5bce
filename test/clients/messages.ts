import type { ReceivedMessage } from "../support/smtp-sink.ts";

/** A TLS mode of the submission door: 587-style STARTTLS, or 465-style TLS from the first byte. */
export type Mode = "starttls" | "tls";

export interface Attachment {
  filename: string;
  path: string;
  contentType: string;
}

export interface MessageSpec {
  kind: "ascii" | "utf8" | "attachment";
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  text: string;
  attachment: Attachment | null;
}

/** What every client program reads: where to connect, how to log in, what to send. */
export interface ClientSpec {
  host: string;
  port: number;
  mode: Mode | "plain";
  ca: string;
  user: string;
  key: string;
  from: string;
  messages: MessageSpec[];
}

/**
 * The three messages each client sends in each mode: ASCII, a UTF-8 subject and body to several recipients
 * (To, Cc and a Bcc), and a text with a binary attachment. Addresses and subjects name the client and mode, so
 * the sink's copy can be told apart.
 */
export function messagesFor(client: string, mode: string, attachment: Attachment): MessageSpec[] {
  const at = (kind: string, n: number) => `${client}-${mode}-${kind}-${n}@example.net`;
  const tag = `[${client}/${mode}]`;
  return [
    {
      kind: "ascii",
      to: [at("ascii", 1)],
      cc: [],
      bcc: [],
      subject: `Build 42 passed ${tag}`,
      text: "All green.\nSee you tomorrow.",
      attachment: null,
    },
    {
      kind: "utf8",
      to: [at("utf8", 1), at("utf8", 2)],
      cc: [at("utf8", 3)],
      bcc: [at("utf8", 4)],
      subject: `Prête à partir — Grüße ✓ ${tag}`,
      text: "Une journée prête: ça marche ✓\nÀ bientôt, Jörg.",
      attachment: null,
    },
    {
      kind: "attachment",
      to: [at("attachment", 1)],
      cc: [],
      bcc: [],
      subject: `Monthly report ${tag}`,
      text: "The report is attached.",
      attachment,
    },
  ];
}

/**
 * Every difference between what the client was asked to send and the copy the sink received for `recipient`:
 * each recipient has its own envelope (its own VERP Return-Path, issue 26), so its own transaction.
 */
export function differences(
  spec: MessageSpec,
  recipient: string,
  got: ReceivedMessage,
  attachment: Buffer,
): string[] {
  const problems: string[] = [];
  if (JSON.stringify(got.envelope.to) !== JSON.stringify([recipient])) {
    problems.push(`recipients ${JSON.stringify(got.envelope.to)} for ${recipient}`);
  }
  if (got.parsed.subject !== spec.subject) problems.push(`subject ${JSON.stringify(got.parsed.subject)}`);
  const text = (got.parsed.text ?? "").replace(/\r\n/g, "\n").trimEnd();
  if (text !== spec.text) problems.push(`text ${JSON.stringify(text)}`);
  // The display name is UTF-8 (Jörg Müller): it must survive as well as the address.
  if (got.parsed.from?.address !== "app@clients.test" || got.parsed.from?.name !== "Jörg Müller") {
    problems.push(`from ${JSON.stringify(got.parsed.from)}`);
  }
  const raw = got.raw.toString("latin1");
  for (const hidden of spec.bcc) if (raw.includes(hidden)) problems.push(`Bcc ${hidden} visible`);
  const files = got.parsed.attachments.map((a) => ({
    name: a.filename,
    content: Buffer.from(a.content as ArrayBuffer),
  }));
  if (spec.attachment) {
    const file = files.find((f) => f.name === spec.attachment?.filename);
    if (!file?.content.equals(attachment))
      problems.push(`attachment ${JSON.stringify(files.map((f) => f.name))}`);
  } else if (files.length > 0) {
    problems.push(`unexpected attachments ${JSON.stringify(files.map((f) => f.name))}`);
  }
  return problems;
}
