import type { SMTPConnectionSendInfo } from "nodemailer/lib/smtp-connection";
import type { OutboundMessage } from "./types.ts";

/** What a next hop's EHLO offered that decides how a message may travel to it. */
export interface HopExtensions {
  eightBitMime: boolean;
  smtpUtf8: boolean;
}

/** The extensions of an EHLO reply (nodemailer keeps the reply as `lastServerResponse` after connecting). */
export function extensionsOf(ehlo: string | false): HopExtensions {
  const reply = ehlo || "";
  return { eightBitMime: /[ -]8BITMIME\b/im.test(reply), smtpUtf8: /[ -]SMTPUTF8\b/im.test(reply) };
}

const nonAscii = (address: string) => /[\u0080-\uffff]/.test(address);

/** One transaction as the hop can take it: which recipients, which bytes, and whether BODY=8BITMIME. */
export interface HopPlan {
  to: string[];
  raw: Buffer;
  use8BitMime: boolean;
  /** Recipients refused here, never offered to the hop: their address needs SMTPUTF8 the hop lacks. */
  refused: Array<{ recipient: string; code: "EENVELOPE"; responseCode: 553; response: string }>;
}

/**
 * Decides for one next hop (RFC 6152, RFC 6531): a non-ASCII address needs SMTPUTF8, so a hop without it is
 * not offered that recipient (553 5.6.7, a permanent failure on the email's timeline); 8-bit bodies go as
 * BODY=8BITMIME where offered, and UTF-8 header fields as they are where the transaction declares SMTPUTF8
 * (nodemailer declares it for a non-ASCII envelope on a hop that offers it). Otherwise the message's 7-bit
 * form, converted and signed before any hop saw it, travels instead.
 */
export async function planFor(
  hop: HopExtensions,
  envelope: { from: string; to: string[] },
  message: OutboundMessage,
): Promise<HopPlan> {
  const refused: HopPlan["refused"] = [];
  let to = envelope.to;
  if (!hop.smtpUtf8) {
    const response = "553 5.6.7 The next hop does not offer SMTPUTF8, which this non-ASCII address needs";
    const unsendable = nonAscii(envelope.from) ? to : to.filter(nonAscii);
    for (const recipient of unsendable)
      refused.push({ recipient, code: "EENVELOPE", responseCode: 553, response });
    to = to.filter((r) => !unsendable.includes(r));
  }
  const eightBit = message.eightBit ?? { headers: false, body: false };
  const declaresUtf8 = hop.smtpUtf8 && [envelope.from, ...to].some(nonAscii);
  const asIs = (!eightBit.body || hop.eightBitMime) && (!eightBit.headers || declaresUtf8);
  if (asIs || !message.sevenBit || to.length === 0) {
    return { to, raw: message.raw, use8BitMime: eightBit.body || eightBit.headers, refused };
  }
  return { to, raw: await message.sevenBit(), use8BitMime: hop.eightBitMime, refused };
}

/** A transaction's result with the recipients refused before it merged in, as nodemailer would report them. */
export function withRefused(info: SMTPConnectionSendInfo, plan: HopPlan): SMTPConnectionSendInfo {
  if (plan.refused.length === 0) return info;
  return {
    ...info,
    rejected: [...info.rejected, ...plan.refused.map((r) => r.recipient)],
    rejectedErrors: [
      ...(info.rejectedErrors ?? []),
      ...(plan.refused as unknown as NonNullable<SMTPConnectionSendInfo["rejectedErrors"]>),
    ],
  };
}
